// Synthetic coding-agent and assistant histories in their real on-disk formats: a claude.ai export
// (conversations.json), a Claude Code project (one JSONL log per session) and Codex rollouts.
import type { Rng } from "./prng.js";
import { paragraph } from "./text-bank.js";

const CLAUDE_TOPICS: { name: string; prompt: string }[] = [
  { name: "Lisbon offsite agenda", prompt: "Help me draft a two-day agenda for our team offsite in Lisbon." },
  { name: "Vendor contract questions", prompt: "What should I check before renewing a vendor contract?" },
  { name: "Explaining p95 latency", prompt: "Explain p95 latency to a non-engineer in two paragraphs." },
  { name: "", prompt: "Summarise the attached notes from the budget review." },
  { name: "Sourdough schedule ✨", prompt: "Plan a sourdough baking schedule around a 9–5 job." },
];

/** A uuid-shaped id that is the same for the same inputs (exports use v4 uuids). */
export function fakeUuid(rng: Rng): string {
  const hex = () => rng.int(0, 0xffff).toString(16).padStart(4, "0");
  return `${hex()}${hex()}-${hex()}-4${hex().slice(1)}-a${hex().slice(1)}-${hex()}${hex()}${hex()}`;
}

const iso = (ms: number) => new Date(ms).toISOString().replace("Z", "000+00:00");

/** claude.ai's conversations.json: uuid, name, chat_messages with text + content blocks, attachments. */
export function buildClaudeExport(rng: Rng, options: { count: number; startMs: number }): unknown[] {
  const conversations: unknown[] = [];
  let time = options.startMs;
  for (let c = 0; c < options.count; c++) {
    time += rng.int(2, 96) * 3_600_000;
    const topic = CLAUDE_TOPICS[c % CLAUDE_TOPICS.length]!;
    const started = time;
    const messages: unknown[] = [];
    const turns = rng.int(1, 4);
    for (let turn = 0; turn < turns; turn++) {
      time += rng.int(10, 300) * 1000;
      const prompt = turn === 0 ? topic.prompt : `Follow-up: ${paragraph(rng, 1)}`;
      const attach = c % CLAUDE_TOPICS.length === 3 && turn === 0;
      messages.push({
        uuid: fakeUuid(rng),
        text: prompt,
        content: [
          {
            start_timestamp: iso(time),
            stop_timestamp: iso(time),
            type: "text",
            text: prompt,
            citations: [],
          },
        ],
        sender: "human",
        created_at: iso(time),
        updated_at: iso(time),
        attachments: attach
          ? [
              {
                file_name: "budget-review-notes.txt",
                file_size: 412,
                file_type: "txt",
                extracted_content: `Budget review notes. ${paragraph(rng, 3)} Action: trim travel by 10%.`,
              },
            ]
          : [],
        files: attach ? [{ file_name: "budget-review-notes.txt" }] : [],
      });
      time += rng.int(5, 60) * 1000;
      const answer = [paragraph(rng, 3), paragraph(rng, 2)].join("\n\n");
      const blocks: unknown[] = [];
      if (c % 4 === 1 && turn === 0) {
        blocks.push({
          type: "thinking",
          thinking: "The user wants a practical checklist; list the risky clauses first.",
        });
      }
      if (c % 5 === 2 && turn === 0) {
        blocks.push(
          { type: "tool_use", name: "web_search", input: { query: "p95 latency explained" } },
          {
            type: "tool_result",
            name: "web_search",
            content: [{ type: "text", text: "p95 latency: 95% of requests finish faster than this." }],
            is_error: false,
          },
        );
      }
      blocks.push({ type: "text", text: answer, citations: [] });
      messages.push({
        uuid: fakeUuid(rng),
        text: answer,
        content: blocks,
        sender: "assistant",
        created_at: iso(time),
        updated_at: iso(time),
        attachments: [],
        files: [],
      });
    }
    conversations.push({
      uuid: fakeUuid(rng),
      name: topic.name,
      created_at: iso(started),
      updated_at: iso(time),
      account: { uuid: "5a1e0000-0000-4000-a000-000000000001" },
      chat_messages: messages,
    });
  }
  return conversations;
}

const CODE_TASKS: { prompt: string; command: string; output: string; file: string }[] = [
  {
    prompt: "The p95 latency of /api/reports doubled after the last deploy. Find out why.",
    command: "git log --oneline -5 -- src/reports",
    output: "a1b2c3d reports: load every widget eagerly\n9f8e7d6 reports: cache headers",
    file: "src/reports/load.ts",
  },
  {
    prompt: "Add a CSV export button to the Atlas dashboard.",
    command: "npm test -- export",
    output: "✔ export writes a header row (3 ms)\n✔ export quotes commas (1 ms)",
    file: "src/dashboard/export.ts",
  },
  {
    prompt: "Why does the vendor sync job fail on Mondays?",
    command: "grep -rn 'weekday' src/jobs",
    output: "src/jobs/vendor-sync.ts:42:  if (weekday === 1) skipHoliday()",
    file: "src/jobs/vendor-sync.ts",
  },
];

/** One Claude Code session log (JSONL text): prompts, assistant text, tool_use + tool_result pairs. */
export function buildClaudeCodeSession(
  rng: Rng,
  options: { sessionId: string; startMs: number; cwd: string; turns: number; task?: number },
): string {
  const lines: unknown[] = [];
  let time = options.startMs;
  let parent: string | null = null;
  const common = {
    isSidechain: false,
    userType: "external",
    cwd: options.cwd,
    sessionId: options.sessionId,
    version: "1.0.51",
    gitBranch: "main",
  };
  const push = (entry: Record<string, unknown>) => {
    const uuid = fakeUuid(rng);
    time += rng.int(2, 40) * 1000;
    lines.push({ parentUuid: parent, ...common, ...entry, uuid, timestamp: new Date(time).toISOString() });
    parent = uuid;
  };
  const task = CODE_TASKS[(options.task ?? rng.int(0, CODE_TASKS.length - 1)) % CODE_TASKS.length]!;
  push({ type: "user", message: { role: "user", content: task.prompt } });
  for (let turn = 0; turn < options.turns; turn++) {
    const toolId = `toolu_${fakeUuid(rng).replace(/-/g, "").slice(0, 24)}`;
    const msg = (content: unknown[]) => ({
      id: `msg_${fakeUuid(rng).replace(/-/g, "").slice(0, 24)}`,
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-20250514",
      content,
      stop_reason: null,
      usage: { input_tokens: rng.int(100, 4000), output_tokens: rng.int(10, 800) },
    });
    push({ type: "assistant", message: msg([{ type: "text", text: paragraph(rng, 2) }]) });
    const read = turn % 2 === 1;
    push({
      type: "assistant",
      message: msg([
        {
          type: "tool_use",
          id: toolId,
          name: read ? "Read" : "Bash",
          input: read
            ? { file_path: `${options.cwd}/${task.file}` }
            : { command: task.command, description: "Look" },
        },
      ]),
    });
    push({
      type: "user",
      message: {
        role: "user",
        content: [
          {
            tool_use_id: toolId,
            type: "tool_result",
            content: read ? `export function load() {\n  // ${paragraph(rng, 1)}\n}` : task.output,
            is_error: false,
          },
        ],
      },
      toolUseResult: { stdout: task.output, stderr: "", interrupted: false },
    });
  }
  push({
    type: "assistant",
    message: {
      role: "assistant",
      model: "claude-sonnet-4-20250514",
      content: [{ type: "text", text: `Done. ${paragraph(rng, 2)}` }],
    },
  });
  const summary = { type: "summary", summary: task.prompt.slice(0, 40), leafUuid: parent };
  return `${[summary, ...lines].map((l) => JSON.stringify(l)).join("\n")}\n`;
}

/** One Codex rollout (JSONL text) in the envelope layout: session_meta, turn_context, response items. */
export function buildCodexRollout(
  rng: Rng,
  options: { sessionId: string; startMs: number; cwd: string; turns: number },
): string {
  let time = options.startMs;
  const lines: unknown[] = [];
  const push = (type: string, payload: unknown) => {
    time += rng.int(1, 30) * 1000;
    lines.push({ timestamp: new Date(time).toISOString(), type, payload });
  };
  push("session_meta", {
    id: options.sessionId,
    timestamp: new Date(time).toISOString(),
    cwd: options.cwd,
    originator: "codex_cli_rs",
    cli_version: "0.46.0",
    instructions: null,
    git: { commit_hash: "4f1c2a9e", branch: "main", repository_url: "git@example.com:atlas/dashboard.git" },
  });
  push("response_item", {
    type: "message",
    role: "user",
    content: [
      {
        type: "input_text",
        text: `<environment_context>\n  <cwd>${options.cwd}</cwd>\n</environment_context>`,
      },
    ],
  });
  push("turn_context", {
    cwd: options.cwd,
    approval_policy: "on-request",
    model: "gpt-5-codex",
    summary: "auto",
  });
  const task = rng.pick(CODE_TASKS);
  push("response_item", {
    type: "message",
    role: "user",
    content: [{ type: "input_text", text: task.prompt }],
  });
  push("event_msg", { type: "user_message", message: task.prompt, images: [] });
  for (let turn = 0; turn < options.turns; turn++) {
    const callId = `call_${fakeUuid(rng).replace(/-/g, "").slice(0, 24)}`;
    push("response_item", {
      type: "reasoning",
      summary: [{ type: "summary_text", text: `**Checking** ${paragraph(rng, 1)}` }],
      content: null,
      encrypted_content: "gAAAAA-opaque",
    });
    push("response_item", {
      type: "function_call",
      name: "shell",
      arguments: JSON.stringify({ command: ["bash", "-lc", task.command], workdir: options.cwd }),
      call_id: callId,
    });
    push("response_item", {
      type: "function_call_output",
      call_id: callId,
      output: JSON.stringify({ output: task.output, metadata: { exit_code: 0, duration_seconds: 0.2 } }),
    });
    push("response_item", {
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: paragraph(rng, 3) }],
    });
    push("event_msg", { type: "token_count", info: null });
  }
  return `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
}
