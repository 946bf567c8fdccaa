// mbox bodies without a declared charset: valid UTF-8 stays UTF-8, other 8-bit bytes are windows-1252
// (what mail clients do), on the fast path and through mailparser alike; HTML-only bodies as text.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseMessage, parseWithMailparser } from "../../src/importers/mbox.js";
import { declareUndeclaredCharsets } from "../../src/importers/undeclared-charset.js";

const latin1 = (text: string) => Buffer.from(text, "latin1");
const head = "From: a@example.com\r\nTo: b@example.com\r\nSubject: Menu\r\nMessage-ID: <m1@example.com>\r\n";

test("a single-part body without a charset: windows-1252 when not UTF-8, UTF-8 when valid", async () => {
  const cp1252 = Buffer.concat([latin1(`${head}\r\ncaf`), Buffer.from([0xe9, 0x20, 0xa3]), latin1("50\r\n")]);
  for (const parse of [parseMessage, parseWithMailparser]) {
    assert.equal((await parse(cp1252)).body, "café £50\n");
    const utf8 = Buffer.from(`${head}\r\ncafé £50 — ok\r\n`, "utf8");
    assert.equal((await parse(utf8)).body, "café £50 — ok\n");
  }
  // 0x80–0x9F are where windows-1252 differs from Latin-1: the euro sign and curly quotes.
  const smart = Buffer.concat([latin1(`${head}\r\n`), Buffer.from([0x93, 0x80, 0x35, 0x94]), latin1("\r\n")]);
  assert.equal((await parseMessage(smart)).body, "\u201c€5\u201d\n");
});

test("a multipart message: only the undeclared 8-bit text part is declared windows-1252", async () => {
  const raw = Buffer.concat([
    latin1(
      `${head}MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b1"\r\n\r\n--b1\r\nContent-Type: text/plain\r\n\r\nna`,
    ),
    Buffer.from([0xef, 0x76, 0x65]),
    latin1(
      "\r\n--b1\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Disposition: attachment; filename=n.txt\r\n\r\n",
    ),
    Buffer.from("déjà\r\n", "utf8"),
    latin1("--b1--\r\n"),
  ]);
  const declared = declareUndeclaredCharsets(raw).toString("latin1");
  assert.equal((declared.match(/charset=windows-1252/g) ?? []).length, 1);
  assert.ok(declared.includes("Content-Type: text/plain; charset=windows-1252\r\n\r\nna"));
  const record = await parseMessage(raw);
  assert.equal(record.body, "naïve");
  const valid = Buffer.from(`${head}\r\nplain ascii\r\n`);
  assert.equal(declareUndeclaredCharsets(valid), valid);
});

test("an HTML-only body keeps table cells apart (mailparser ran them together)", async () => {
  const html =
    "<p>Invoice</p><table><tr><th>Item</th><th>Cost</th></tr><tr><td>Hosting</td><td>$1,000</td></tr><tr><td>Domain</td><td>$12</td></tr></table>";
  const raw = Buffer.from(
    `${head}MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${html}\r\n`,
  );
  assert.equal((await parseMessage(raw)).body, "Invoice\n\nItem      Cost\nHosting   $1,000\nDomain    $12");
});
