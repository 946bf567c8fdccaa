// Synthetic ChatGPT export (conversations.json shape): mapping trees, one with an edited, abandoned branch.
import type { Rng } from "./prng.js";
import { paragraph } from "./text-bank.js";

const TOPICS: { title: string; question: string }[] = [
  { title: "Lisbon itinerary", question: "Plan three days in Lisbon with a day trip to Sintra." },
  { title: "SQL window functions", question: "Explain ROW_NUMBER versus RANK with an example." },
  { title: "Atlas launch checklist", question: "Draft a launch checklist for a B2B analytics product." },
  { title: "Sourdough starter", question: "My sourdough starter smells like acetone. What should I do?" },
  { title: "Budget spreadsheet", question: "How do I categorise card transactions in a spreadsheet?" },
  { title: "Latency investigation", question: "Our p95 latency doubled after a deploy. Where do I start?" },
  { title: "Birthday gift ideas", question: "Gift ideas for a 10-year-old who likes robots?" },
];

interface Node {
  id: string;
  parent: string | null;
  children: string[];
  message: unknown;
}

export function buildConversations(rng: Rng, options: { count: number; startSeconds: number }): unknown[] {
  const conversations: unknown[] = [];
  let time = options.startSeconds;
  for (let c = 0; c < options.count; c++) {
    time += rng.int(3_600, 5 * 86_400);
    const topic = TOPICS[c % TOPICS.length]!;
    const id = `6${c.toString(16).padStart(7, "0")}-sample-chat-${c}`;
    const mapping: Record<string, Node> = {};
    const add = (nodeId: string, parent: string | null, message: unknown) => {
      mapping[nodeId] = { id: nodeId, parent, children: [], message };
      if (parent) mapping[parent]!.children.push(nodeId);
    };
    let t = time;
    const msg = (msgId: string, role: string, text: string, model?: string) => {
      t += rng.int(5, 90);
      return message({ msgId, role, text, model, time: t });
    };
    const model = rng.pick(["gpt-4o", "gpt-4o", "o3-mini", "gpt-4.1"]);
    add(`${id}-root`, null, null);
    add(`${id}-system`, `${id}-root`, msg(`${id}-system`, "system", ""));
    let parent = `${id}-system`;
    const turns = rng.int(2, 5);
    for (let turn = 0; turn < turns; turn++) {
      const userId = `${id}-u${turn}`;
      const question = turn === 0 ? topic.question : `Follow-up: ${paragraph(rng, 1)}`;
      add(userId, parent, msg(userId, "user", question));
      if (c === 0 && turn === 1) {
        // The abandoned branch: the user edited this question and the original answer hangs off it.
        add(`${userId}-old`, parent, msg(`${userId}-old`, "user", "Actually, what about Porto instead?"));
        add(
          `${userId}-old-a`,
          `${userId}-old`,
          msg(`${userId}-old-a`, "assistant", "Porto is three hours north by train.", model),
        );
      }
      const answerId = `${id}-a${turn}`;
      const answer = [paragraph(rng, 3), paragraph(rng, 4), paragraph(rng, 2)].join("\n\n");
      add(answerId, userId, msg(answerId, "assistant", answer, model));
      parent = answerId;
    }
    conversations.push({
      title: topic.title,
      create_time: time,
      update_time: t,
      mapping,
      moderation_results: [],
      current_node: parent,
      plugin_ids: null,
      conversation_id: id,
      conversation_template_id: null,
      id,
      default_model_slug: model,
    });
  }
  return conversations;
}

function message(m: { msgId: string; role: string; text: string; model?: string; time: number }): unknown {
  return {
    id: m.msgId,
    author: { role: m.role, name: null, metadata: {} },
    create_time: m.time,
    update_time: null,
    content: { content_type: "text", parts: [m.text] },
    status: "finished_successfully",
    end_turn: m.role === "assistant",
    weight: 1,
    metadata: m.model ? { model_slug: m.model } : {},
    recipient: "all",
  };
}
