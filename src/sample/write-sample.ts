// The deterministic sample dataset in real export formats: two mbox mailboxes (two connections of `mbox`),
// a ChatGPT conversations.json, a claude.ai export, a Claude Code project folder, a bank CSV with its
// manifest. Same seed and scale → byte-identical files.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ImportKind } from "../importers/import-file.js";
import { buildClaudeCodeSession, buildClaudeExport, fakeUuid } from "./agent-sample.js";
import { BANK_MANIFEST, buildTransactionsCsv } from "./bank-sample.js";
import { buildConversations } from "./chat-sample.js";
import { buildMbox, PERSONAL_MAILBOX, WORK_MAILBOX } from "./mail-sample.js";
import { createRng } from "./prng.js";

export interface SampleImport {
  kind: ImportKind;
  /** The file, or for log importers (claude-code) the folder. */
  path: string;
  /** The intended connection label (account) for this file. */
  connectionLabel: string;
  /** For generic formats: the manifest file describing the records. */
  manifestPath?: string;
}

export interface SampleFiles {
  dir: string;
  imports: SampleImport[];
}

const START = Date.UTC(2024, 0, 2, 8, 0, 0);

export async function writeSampleData(
  dir: string,
  options: { seed?: number; scale?: number } = {},
): Promise<SampleFiles> {
  const seed = options.seed ?? 42;
  const scale = Math.max(0.05, options.scale ?? 1);
  const n = (base: number) => Math.max(6, Math.round(base * scale));
  await mkdir(dir, { recursive: true });

  const work = buildMbox(createRng(seed), WORK_MAILBOX, {
    count: n(120),
    startMs: START,
    hugeIndex: 11,
    idPrefix: "work",
  });
  const personal = buildMbox(createRng(seed + 1), PERSONAL_MAILBOX, {
    count: n(80),
    startMs: START,
    hugeIndex: -1,
    idPrefix: "home",
  });
  const conversations = buildConversations(createRng(seed + 2), { count: n(24), startSeconds: START / 1000 });
  const transactions = buildTransactionsCsv(createRng(seed + 3), { count: n(360), startMs: START });
  const claude = buildClaudeExport(createRng(seed + 4), { count: n(15), startMs: START });
  const codeRng = createRng(seed + 5);
  const project = join(dir, "claude-code", "projects", "-home-sam-atlas-dashboard");
  await mkdir(project, { recursive: true });
  for (let s = 0; s < n(6); s++) {
    const sessionId = fakeUuid(codeRng);
    const log = buildClaudeCodeSession(codeRng, {
      sessionId,
      startMs: START + s * 3 * 86_400_000,
      cwd: "/home/sam/atlas-dashboard",
      turns: codeRng.int(1, 4),
      task: s,
    });
    await writeFile(join(project, `${sessionId}.jsonl`), log);
  }

  const files = {
    work: join(dir, "work-mail.mbox"),
    personal: join(dir, "personal-mail.mbox"),
    chat: join(dir, "conversations.json"),
    claude: join(dir, "claude-conversations.json"),
    claudeCode: join(dir, "claude-code", "projects"),
    bank: join(dir, "bank-transactions.csv"),
    bankManifest: join(dir, "bank-transactions.manifest.json"),
  };
  await writeFile(files.work, work);
  await writeFile(files.personal, personal);
  await writeFile(files.chat, JSON.stringify(conversations, null, 1));
  await writeFile(files.claude, JSON.stringify(claude, null, 1));
  await writeFile(files.bank, transactions);
  await writeFile(files.bankManifest, `${JSON.stringify(BANK_MANIFEST, null, 2)}\n`);
  return {
    dir,
    imports: [
      { kind: "mbox", path: files.work, connectionLabel: "Work mail" },
      { kind: "mbox", path: files.personal, connectionLabel: "Personal mail" },
      { kind: "chatgpt", path: files.chat, connectionLabel: "ChatGPT" },
      { kind: "claude", path: files.claude, connectionLabel: "Claude" },
      { kind: "claude-code", path: files.claudeCode, connectionLabel: "Claude Code" },
      { kind: "csv", path: files.bank, connectionLabel: "Bank", manifestPath: files.bankManifest },
    ],
  };
}
