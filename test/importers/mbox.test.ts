// The mbox importer on real-format bytes: splitting, mboxrd unquoting, MIME edge cases, ids, threads, labels.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { gmailLabels, mboxItems, openMboxSource } from "../../src/importers/mbox.js";
import { splitMbox } from "../../src/importers/mbox-split.js";
import type { ImportItem } from "../../src/importers/types.js";

const crlf = (s: string) => s.replace(/\n/g, "\r\n");

const plain = [
  "From alice@example.com Mon Mar  4 09:00:00 2024",
  "Message-ID: <CA+a/b@mail.example>",
  "X-GM-THRID: 1790000000000000001",
  'X-Gmail-Labels: Inbox,Important,"Work, Q1"',
  "From: Alice Example <alice@example.com>",
  "To: Bob <bob@example.com>, carol@example.com",
  "Cc: Dan <dan@example.com>",
  "Subject: Quarterly plan",
  "Date: Mon, 4 Mar 2024 10:00:00 +0100",
  "",
  "Hi Bob,",
  ">From the top: the plan.",
  ">>From here it is quoted twice.",
  "From: not a separator because it has no space after From? it has a colon",
  "",
].join("\n");

const qpAndLatin1 = [
  "From bob@example.com Tue Mar  5 09:00:00 2024",
  "Message-ID: <reply-1@example.com>",
  "In-Reply-To: <CA+a/b@mail.example>",
  "References: <root-0@example.com> <CA+a/b@mail.example>",
  "From: =?ISO-8859-1?Q?Bj=F6rn?= <bjorn@example.se>",
  "To: alice@example.com",
  "Subject: =?UTF-8?B?UmU6IFF1YXJ0ZXJseSBwbGFuIOKckw==?=",
  "Date: Tue, 5 Mar 2024 08:30:00 +0000",
  "MIME-Version: 1.0",
  'Content-Type: multipart/alternative; boundary="b1"',
  "",
  "--b1",
  "Content-Type: text/plain; charset=iso-8859-1",
  "Content-Transfer-Encoding: quoted-printable",
  "",
  "H=E4lsningar fr=E5n G=F6teborg, a very long line that is soft-wrapped by quoted-=",
  "printable here.",
  "--b1",
  "Content-Type: text/html; charset=utf-8",
  "",
  "<p>Hälsningar</p>",
  "--b1--",
  "",
].join("\n");

const htmlOnlyBase64 = [
  "From noreply@shop.example Wed Mar  6 09:00:00 2024",
  "From: Shop <noreply@shop.example>",
  "To: alice@example.com",
  "Subject: Your receipt",
  "Date: Wed, 6 Mar 2024 12:00:00 +0000",
  "MIME-Version: 1.0",
  'Content-Type: multipart/mixed; boundary="m1"',
  "",
  "--m1",
  "Content-Type: text/html; charset=utf-8",
  "Content-Transfer-Encoding: base64",
  "",
  Buffer.from("<html><body><h1>Receipt</h1><p>Total: 12,00&nbsp;€</p><p>Thanks</p></body></html>").toString(
    "base64",
  ),
  "--m1",
  'Content-Type: application/pdf; name="receipt.pdf"',
  'Content-Disposition: attachment; filename="receipt.pdf"',
  "Content-Transfer-Encoding: base64",
  "",
  Buffer.from("%PDF-1.4 fake pdf bytes").toString("base64"),
  "--m1--",
  "",
].join("\n");

function mboxBytes(): Buffer {
  // One message in CRLF, the 8-bit Latin-1 bytes kept as bytes, a junk-free start.
  return Buffer.concat([
    Buffer.from(`${plain}\n`),
    Buffer.from(`${qpAndLatin1}\n`),
    Buffer.from(`${crlf(htmlOnlyBase64)}\n`),
  ]);
}

async function collect(chunks: Buffer[]): Promise<ImportItem[]> {
  async function* gen() {
    yield* chunks;
  }
  const out: ImportItem[] = [];
  for await (const item of mboxItems(gen())) out.push(item);
  return out;
}

function records(items: ImportItem[]): Record<string, unknown>[] {
  return items.flatMap((i) => ("data" in i ? [i.data] : []));
}

test("splits on From lines whatever the chunking, and unquotes >From one level", async () => {
  const bytes = mboxBytes();
  for (const size of [1, 2, 5, 6, 7, 64, bytes.length]) {
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
    async function* gen() {
      yield* chunks;
    }
    const messages = [];
    for await (const m of splitMbox(gen())) messages.push(m);
    assert.deepEqual(
      messages.map((m) => [m.index, m.offset]),
      [
        [1, 0],
        [2, plain.length + 1],
        [3, plain.length + Buffer.byteLength(qpAndLatin1) + 2],
      ],
      `chunk size ${size}`,
    );
    const first = messages[0]!.raw.toString("utf8");
    assert.ok(first.startsWith("Message-ID: <CA+a/b@mail.example>\n"));
    assert.ok(first.includes("\nFrom the top: the plan.\n"));
    assert.ok(first.includes("\n>From here it is quoted twice.\n"));
  }
});

test("parses headers, thread ids, labels and the plain body", async () => {
  const [first] = records(await collect([mboxBytes()]));
  assert.deepEqual(
    { ...first, body: undefined, size_bytes: undefined },
    {
      message_id: "<CA+a/b@mail.example>",
      thread_id: "1790000000000000001",
      subject: "Quarterly plan",
      from: "Alice Example <alice@example.com>",
      to: ["Bob <bob@example.com>", "carol@example.com"],
      cc: ["Dan <dan@example.com>"],
      sent_at: "2024-03-04T09:00:00.000Z",
      labels: ["Inbox", "Important", "Work, Q1"],
      body: undefined,
      size_bytes: undefined,
      attachments: [],
    },
  );
  assert.match(String(first!.body), /^Hi Bob,\nFrom the top: the plan.\n>From here it is quoted twice.\n/);
});

test("decodes quoted-printable Latin-1, encoded-word headers, and threads by the References root", async () => {
  const second = records(await collect([mboxBytes()]))[1]!;
  assert.equal(second.message_id, "<reply-1@example.com>");
  assert.equal(second.thread_id, "<root-0@example.com>");
  assert.equal(second.from, "Björn <bjorn@example.se>");
  assert.equal(second.subject, "Re: Quarterly plan ✓");
  assert.equal(
    String(second.body).trim(),
    "Hälsningar från Göteborg, a very long line that is soft-wrapped by quoted-printable here.",
  );
  assert.deepEqual(second.labels, []);
});

test("HTML-only base64 mail becomes readable text; attachments are metadata with a sha256 digest", async () => {
  const third = records(await collect([mboxBytes()]))[2]!;
  const raw = Buffer.from(`${crlf(htmlOnlyBase64)}`.split("\r\n").slice(1).join("\r\n"));
  const expectedId = `sha256:${createHash("sha256")
    .update(raw.toString().replace(/[\r\n]+$/, ""))
    .digest("hex")}`;
  assert.equal(third.message_id, expectedId);
  assert.equal(third.thread_id, expectedId);
  const body = String(third.body);
  assert.match(body, /RECEIPT|Receipt/);
  assert.match(body, /Total: 12,00\s€/);
  assert.ok(!body.includes("<p>"));
  assert.deepEqual(third.attachments, [
    {
      filename: "receipt.pdf",
      content_type: "application/pdf",
      size_bytes: 23,
      digest: `sha256:${createHash("sha256").update("%PDF-1.4 fake pdf bytes").digest("hex")}`,
    },
  ]);
});

test("a missing Message-ID gives the same id on every run and in any file position", async () => {
  const alone = records(await collect([Buffer.from(`${crlf(htmlOnlyBase64)}`)]));
  const inFile = records(await collect([mboxBytes()]));
  assert.equal(alone[0]!.message_id, inFile[2]!.message_id);
});

test("junk before the first From line and a header-less message are reported with positions and skipped", async () => {
  const bytes = Buffer.from(
    `garbage line\n\nFrom x Mon Jan  1 00:00:00 2024\nthis is not a header\n\n${plain}\n`,
  );
  const items = await collect([bytes]);
  assert.deepEqual(
    items.map((i) => ("error" in i ? `error@${i.position}` : `ok@${i.position}`)),
    ["error@byte 0", "error@message 1 (byte 14)", "ok@message 2 (byte 68)"],
  );
});

test("an unreadable Date gives sent_at null, the same on every run (mailparser would say 'now')", async () => {
  const message = (date: string, type: string) =>
    [
      "From eve@example.com Sat Jan 20 09:00:00 2024",
      "Message-ID: <bad-date@example.com>",
      "From: eve@example.com",
      "Subject: odd date",
      `Date: ${date}`,
      `Content-Type: ${type}`,
      "",
      "body",
      "",
    ].join("\n");
  for (const type of ["text/plain", "text/html"]) {
    const bad = records(await collect([Buffer.from(message("not a date", type))]));
    assert.equal(bad[0]!.sent_at, null, type);
    const good = records(await collect([Buffer.from(message("Sat, 20 Jan 2024 09:00:00 +0100", type))]));
    assert.equal(good[0]!.sent_at, "2024-01-20T08:00:00.000Z", type);
  }
});

test("gmailLabels handles quoting and empties", () => {
  assert.deepEqual(gmailLabels('Inbox, "a, b" ,Sent,,"q\\"x"'), ["Inbox", "a, b", "Sent", 'q"x']);
  assert.deepEqual(gmailLabels(""), []);
  assert.deepEqual(gmailLabels(null), []);
});

test("openMboxSource reads a file and counts its bytes", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pdpp-mbox-"));
  try {
    const path = join(dir, "mail.mbox");
    writeFileSync(path, mboxBytes());
    const source = openMboxSource(path);
    let n = 0;
    for await (const item of source.items) if ("data" in item) n++;
    assert.equal(n, 3);
    assert.equal(source.bytesRead(), mboxBytes().length);
    assert.equal(source.totalBytes, mboxBytes().length);
    assert.equal(source.manifest.connector_key, "mbox");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
