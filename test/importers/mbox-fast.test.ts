// The mbox fast path gives exactly the record mailparser gives: generated plain messages (encoded words,
// folded headers, CRLF, quoted-printable, Latin-1) and the sample mailboxes, compared field for field.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseMessage, parseWithMailparser } from "../../src/importers/mbox.js";
import { fastMailFields } from "../../src/importers/mbox-fast.js";
import { splitMbox } from "../../src/importers/mbox-split.js";
import { buildMbox, PERSONAL_MAILBOX, WORK_MAILBOX } from "../../src/sample/mail-sample.js";
import { createRng, type Rng } from "../../src/sample/prng.js";

const SUBJECTS = [
  "Quarterly plan",
  "=?UTF-8?B?UmU6IFF1YXJ0ZXJseSBwbGFuIOKckw==?=",
  "=?utf-8?Q?Gr=C3=BC=C3=9Fe_aus_K=C3=B6ln?=",
  "=?ISO-8859-1?Q?Hej_fr=E5n_G=F6teborg?=",
  "Re: =?utf-8?B?4pyT?= done =?utf-8?Q?=E2=9C=93?=",
  "=?utf-8?B?8J+Ygg==?= =?utf-8?B?8J+Ygg==?=",
  "=?utf-8?Q?split_=F0=9F?= =?utf-8?Q?=98=82_char?=",
  "=?us-ascii?Q?plain_ascii?= =?iso-8859-1?Q?caf=E9?=",
  "a folded\n\tsubject line\n   with three parts",
  "",
  "=?koi8-r?B?8NLJ18XU?=",
  "=?utf-8*en?Q?lang_tag?=",
];
const FROMS = [
  "Alice Example <alice@example.com>",
  "bob@example.com",
  '"Smith, John" <john@example.com>',
  "=?utf-8?Q?Bj=C3=B6rn?= <bjorn@example.se>",
  "Team: a@example.com, b@example.com;",
  "carol@example.com (Carol)",
  null,
];
const TOS = [
  ["me@example.com"],
  ["Bob <bob@example.com>, carol@example.com"],
  ["a@example.com", "B <b@example.com>"],
  ["undisclosed-recipients:;"],
  [],
];
const TYPES = [
  null,
  "text/plain",
  "text/plain; charset=utf-8",
  'TEXT/PLAIN; charset="UTF-8"',
  "text/plain; charset=us-ascii",
  "text/plain; charset=iso-8859-1",
  "text/plain; charset=windows-1252",
  "text/plain; charset=utf-8; format=flowed",
  "text/html; charset=utf-8",
  "",
];
const ENCODINGS = [null, "7bit", "8bit", "quoted-printable", "Quoted-Printable", "base64"];
const DATES = [
  "Mon, 4 Mar 2024 10:00:00 +0100",
  "Tue, 5 Mar 2024 08:30:00 +0000 (UTC)",
  "5 Mar 2024 08:30 -0500",
  null,
  // (an unreadable Date becomes "now" in mailparser: not comparable, see the declined list below)
];
const BODIES = [
  "Hi Bob,\nthe plan is attached.\n",
  "no trailing newline",
  "",
  "   \n\n",
  "caf\u00e9 and na\u00efve, \u2713 and \u{1F602}\n",
  "quoted=3Dprintable soft=\nbreak, trailing blanks   \nand =E4 =ZZ bad escape=\n",
  "long line ".repeat(40),
  ">From quoted\nFrom: looks like a header\n\n\nthree blank lines above\n",
];

function pick<T>(rng: Rng, list: readonly T[]): T {
  return list[rng.int(0, list.length - 1)]!;
}

function bodyBytes(body: string, type: string | null): Buffer {
  // A Latin-1 part carries Latin-1 bytes; a windows-1252 part sometimes a 0x80–0x9F byte (curly quote).
  if (type?.includes("iso-8859-1")) return Buffer.from(body, "latin1");
  if (type?.includes("windows-1252"))
    return Buffer.concat([Buffer.from(body, "latin1"), Buffer.from([0x93])]);
  return Buffer.from(body, "utf8");
}

function generated(rng: Rng, n: number): Buffer {
  const headers: string[] = [];
  if (rng.chance(0.85))
    headers.push(`Message-ID: ${rng.chance(0.9) ? `<gen-${n}@example.com>` : `gen-${n}@x`}`);
  if (rng.chance(0.3)) headers.push(`X-GM-THRID: 17${n}`);
  if (rng.chance(0.1)) headers.push("X-GM-THRID: 1799");
  if (rng.chance(0.4)) headers.push('X-Gmail-Labels: Inbox,"Work, Q1",Sent');
  if (rng.chance(0.3)) headers.push(`In-Reply-To: ${rng.chance(0.5) ? "<parent@example.com>" : "parent@x"}`);
  if (rng.chance(0.3)) headers.push("References: <root@example.com>\n <mid@example.com>");
  if (rng.chance(0.1)) headers.push("References: <second@example.com>");
  const from = pick(rng, FROMS);
  if (from !== null) headers.push(`From: ${from}`);
  for (const to of pick(rng, TOS)) headers.push(`To: ${to}`);
  if (rng.chance(0.3)) headers.push("Cc: Dan <dan@example.com>,\n\t=?utf-8?B?w4lsaXNl?= <elise@example.com>");
  headers.push(`Subject: ${pick(rng, SUBJECTS)}`);
  if (rng.chance(0.05)) headers.push("Subject: second subject");
  const date = pick(rng, DATES);
  if (date !== null) headers.push(`Date: ${date}`);
  if (rng.chance(0.5)) headers.push("MIME-Version: 1.0");
  const type = pick(rng, TYPES);
  if (type !== null) headers.push(`Content-Type: ${type}`);
  const encoding = pick(rng, ENCODINGS);
  if (encoding !== null) headers.push(`Content-Transfer-Encoding: ${encoding}`);
  if (rng.chance(0.05)) headers.push('Content-Disposition: attachment; filename="note.txt"');
  if (rng.chance(0.2)) headers.push("X-Mailer: generator\n  with folding");
  const body = pick(rng, BODIES);
  const head = headers.join("\n");
  const crlf = rng.chance(0.4);
  const text = (s: string) => (crlf ? s.replace(/\n/g, "\r\n") : s);
  return Buffer.concat([
    Buffer.from(text(`${head}\n\n`)),
    Buffer.from(text(bodyBytes(body, type).toString("latin1")), "latin1"),
  ]);
}

async function assertSame(raw: Buffer, label: string): Promise<boolean> {
  const fast = fastMailFields(raw);
  assert.deepEqual(await parseMessage(raw), await parseWithMailparser(raw), label);
  return fast !== null;
}

test("generated plain messages: the fast path's record deep-equals mailparser's", async () => {
  const rng = createRng(7);
  let viaFastPath = 0;
  const total = 600;
  for (let n = 0; n < total; n++) {
    const raw = generated(rng, n);
    if (await assertSame(raw, `message ${n}:\n${raw.toString("latin1").slice(0, 600)}`)) viaFastPath++;
  }
  // The comparison means something only if most messages really took the fast path (and some did not).
  assert.ok(viaFastPath > total / 3, `only ${viaFastPath} of ${total} took the fast path`);
  assert.ok(viaFastPath < total, "every message took the fast path; the fallback went untested");
});

test("the sample mailboxes: every message gives the same record on both paths", async () => {
  let viaFastPath = 0;
  let total = 0;
  for (const [box, seed] of [
    [WORK_MAILBOX, 11],
    [PERSONAL_MAILBOX, 12],
  ] as const) {
    const text = buildMbox(createRng(seed), box, {
      count: 120,
      startMs: Date.UTC(2023, 0, 1),
      hugeIndex: -1,
      idPrefix: "eq",
    });
    async function* chunks() {
      yield Buffer.from(text);
    }
    for await (const message of splitMbox(chunks())) {
      if (message.index === 0) continue;
      total++;
      if (await assertSame(message.raw, `sample message ${message.index}`)) viaFastPath++;
    }
  }
  assert.equal(total, 240);
  assert.ok(viaFastPath > 0, "no sample message took the fast path");
});

test("the fast path declines what it does not read: multipart, HTML, base64, flowed, unknown charsets", () => {
  const declined = [
    "Content-Type: multipart/alternative; boundary=b\n\n--b\n\nx\n--b--\n",
    "Content-Type: text/html\n\n<p>x</p>\n",
    "Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\neA==\n",
    "Content-Type: text/plain; format=flowed\n\nx\n",
    "Content-Type: text/plain; charset=koi8-r\n\nx\n",
    "Subject: =?koi8-r?B?8NLJ18XU?=\n\nx\n",
    "Date: not a date\n\nx\n",
    "Subject: caf\u00e9 in raw 8-bit\n\nx\n",
    "Subject: no blank line after the headers",
  ];
  for (const text of declined) assert.equal(fastMailFields(Buffer.from(text)), null, text);
  assert.notEqual(fastMailFields(Buffer.from("Subject: plain\n\nbody\n")), null);
});
