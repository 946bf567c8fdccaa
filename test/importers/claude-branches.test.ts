// claude.ai exports as they are: edited and retried messages kept as the tree (parent_message_uuid)
// with the branch the conversation shows marked, untitled conversations titled from their first human
// message, and projects (projects.json, or projects/<uuid>.json in newer exports) with their
// instructions and knowledge docs as their own streams; from the zip and from an unzipped folder.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { CLAUDE_MANIFEST } from "../../src/importers/claude-manifest.js";
import { detectFormat } from "../../src/importers/detect.js";
import { importFile } from "../../src/importers/import-file.js";
import { storedRecords } from "../helpers-importers/agent-fixtures.js";
import { openOwnerApp } from "../helpers-importers/owner-app.js";
import { buildStoredZip } from "../helpers-importers/zip-writer.js";

const ROOT = "00000000-0000-4000-8000-000000000000";
const at = (m: number) => `2025-02-10T09:${String(m).padStart(2, "0")}:00.000000+00:00`;
const msg = (uuid: string, parent: string, sender: string, text: string, minute: number) => ({
  uuid,
  text: "",
  content: [{ start_timestamp: at(minute), stop_timestamp: at(minute), type: "text", text, citations: [] }],
  sender,
  created_at: at(minute),
  updated_at: at(minute),
  attachments: [],
  files: [],
  parent_message_uuid: parent,
});

/** One edit of the first question and one retry of an answer: three leaves, the newest is shown. */
const branched = {
  uuid: "conv-branch",
  name: "",
  summary: "",
  created_at: at(0),
  updated_at: at(9),
  account: { uuid: "acct-1" },
  chat_messages: [
    msg("h1", ROOT, "human", "Compare Lisbon and Porto for a 4-day trip 🇵🇹 in March", 0),
    msg("a1", "h1", "assistant", "Lisbon has more day trips.", 1),
    msg("h1b", ROOT, "human", "Compare Lisbon and Porto for a 5-day trip in March", 2),
    msg("a1b", "h1b", "assistant", "With five days, do both.", 3),
    msg("h2", "a1b", "human", "Train times?", 4),
    msg("a2", "h2", "assistant", "About three hours.", 5),
    msg("a2b", "h2", "assistant", "Alfa Pendular: 2h50.", 6),
  ],
};

const projects = [
  {
    uuid: "proj-1",
    name: "Trip planning",
    description: "Everything for the spring trip",
    is_private: true,
    is_starter_project: false,
    prompt_template: "You are a frugal travel planner. Prefer trains.",
    created_at: "2025-01-05T10:00:00.000000+00:00",
    updated_at: "2025-02-01T10:00:00.000000+00:00",
    creator: { uuid: "acct-1", full_name: "Ana Lima" },
    docs: [
      {
        uuid: "doc-1",
        filename: "budget.md",
        content: "# Budget\nTrains €40, hostels €25/night",
        created_at: "2025-01-06T10:00:00.000000+00:00",
      },
    ],
  },
];
const starter = {
  uuid: "proj-0",
  name: "How to use Claude",
  description: "An example project",
  is_private: false,
  is_starter_project: true,
  prompt_template: "",
  created_at: "2024-12-01T10:00:00.000000+00:00",
  updated_at: "2024-12-01T10:00:00.000000+00:00",
  creator: { uuid: "acct-1", full_name: "Ana Lima" },
  docs: [],
};

test("claude.ai: edit branches kept with the current one marked; untitled titled; projects imported", async () => {
  const app = await openOwnerApp();
  try {
    const zip = join(app.dir, "data-2025-02-11-10-00-00-batch-0000.zip");
    writeFileSync(
      zip,
      buildStoredZip({
        "users.json": JSON.stringify([{ uuid: "acct-1", full_name: "Ana Lima" }]),
        "conversations.json": JSON.stringify([branched]),
        "projects.json": JSON.stringify(projects),
      }),
    );
    assert.equal((await detectFormat(zip)).format.name, "claude");
    const result = await importFile(app.api, { kind: "claude", path: zip });
    assert.deepEqual(result.rejections, []);
    const messages = await storedRecords(app.store, CLAUDE_MANIFEST, "messages");
    const rows = [...messages.values()].map((m) => [
      m.message_id,
      m.parent_message_uuid,
      m.on_current_branch,
    ]);
    assert.deepEqual(rows, [
      ["a1", "h1", false],
      ["a1b", "h1b", true],
      ["a2", "h2", false],
      ["a2b", "h2", true],
      ["h1", ROOT, false],
      ["h1b", ROOT, true],
      ["h2", "a1b", true],
    ]);
    const conversation = (await storedRecords(app.store, CLAUDE_MANIFEST, "conversations")).get(
      "conv-branch",
    )!;
    // Untitled: the first human message of the branch shown, as one line.
    assert.equal(conversation.title, "Compare Lisbon and Porto for a 5-day trip in March");
    assert.equal(messages.get("conv-branch~h2")!.conversation_title, conversation.title);

    const stored = await storedRecords(app.store, CLAUDE_MANIFEST, "projects");
    assert.deepEqual(stored.get("proj-1"), {
      project_id: "proj-1",
      name: "Trip planning",
      description: "Everything for the spring trip",
      prompt_template: "You are a frugal travel planner. Prefer trains.",
      is_private: true,
      is_starter_project: false,
      creator: "Ana Lima",
      created_at: "2025-01-05T10:00:00.000Z",
      updated_at: "2025-02-01T10:00:00.000Z",
      doc_count: 1,
    });
    const docs = await storedRecords(app.store, CLAUDE_MANIFEST, "project_docs");
    assert.deepEqual(docs.get("proj-1~doc-1"), {
      project_id: "proj-1",
      doc_id: "doc-1",
      project_name: "Trip planning",
      filename: "budget.md",
      content: "# Budget\nTrains €40, hostels €25/night",
      created_at: "2025-01-06T10:00:00.000Z",
    });
    // The project's instructions and docs are found by search.
    const hits = (await app.get("/v1/search?q=frugal&limit=10")).data as { stream: string }[];
    assert.deepEqual(
      hits.map((h) => h.stream),
      ["projects"],
    );
    const docHits = (await app.get("/v1/search?q=hostels&limit=10")).data as { stream: string }[];
    assert.deepEqual(
      docHits.map((h) => h.stream),
      ["project_docs"],
    );
  } finally {
    await app.close();
  }
});

test("claude.ai: an unzipped export reads projects/<uuid>.json beside conversations.json", async () => {
  const app = await openOwnerApp();
  try {
    const dir = join(app.dir, "export");
    mkdirSync(join(dir, "projects"), { recursive: true });
    // The export's current_leaf_message_uuid, when present, names the branch shown.
    writeFileSync(
      join(dir, "conversations.json"),
      JSON.stringify([{ ...branched, current_leaf_message_uuid: "a1" }]),
    );
    writeFileSync(join(dir, "projects", "proj-1.json"), JSON.stringify(projects[0]));
    writeFileSync(join(dir, "projects", "proj-0.json"), JSON.stringify(starter));
    const result = await importFile(app.api, { kind: "claude", path: join(dir, "conversations.json") });
    assert.deepEqual(
      [result.rejected, result.perStream.projects!.added, result.perStream.project_docs!.added],
      [0, 2, 1],
    );
    const messages = await storedRecords(app.store, CLAUDE_MANIFEST, "messages");
    const shown = [...messages.values()].filter((m) => m.on_current_branch).map((m) => m.message_id);
    assert.deepEqual(shown, ["a1", "h1"]);
    const conversation = (await storedRecords(app.store, CLAUDE_MANIFEST, "conversations")).get(
      "conv-branch",
    )!;
    assert.equal(conversation.title, "Compare Lisbon and Porto for a 4-day trip 🇵🇹 in March");
    const stored = await storedRecords(app.store, CLAUDE_MANIFEST, "projects");
    assert.deepEqual([...stored.keys()], ["proj-0", "proj-1"]);
    assert.equal(stored.get("proj-0")!.is_starter_project, true);
  } finally {
    await app.close();
  }
});
