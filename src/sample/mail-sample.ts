// Synthetic mail in real mbox format: threads, Gmail labels, long bodies, multipart/alternative,
// quoted-printable, base64, an ISO-8859-1 part and an attachment — what real exports contain.
import type { Rng } from "./prng.js";
import { longText, paragraph } from "./text-bank.js";

export interface Mailbox {
  owner: { name: string; address: string };
  domain: string;
  contacts: { name: string; address: string }[];
  topics: string[];
  labels: string[];
}

export const WORK_MAILBOX: Mailbox = {
  owner: { name: "Sam Rivera", address: "sam@atlas-corp.example" },
  domain: "atlas-corp.example",
  contacts: [
    { name: "Alice Chen", address: "alice@atlas-corp.example" },
    { name: "Bilal Haddad", address: "bilal@atlas-corp.example" },
    { name: "Carmen Ortiz", address: "carmen@vendor-co.example" },
    { name: "Dmitri Volkov", address: "dmitri@atlas-corp.example" },
    { name: "Erik Lindqvist", address: "erik@nordic-partners.example" },
  ],
  topics: [
    "Atlas launch plan",
    "Q3 budget review",
    "Vendor contract renewal",
    "Latency regression",
    "Offsite agenda",
  ],
  labels: ["Projects/Atlas", "Finance", "Important"],
};

export const PERSONAL_MAILBOX: Mailbox = {
  owner: { name: "Sam Rivera", address: "sam.rivera@mail.example" },
  domain: "mail.example",
  contacts: [
    { name: "Alice Chen", address: "alice.chen@mail.example" },
    { name: "Mom", address: "linda.rivera@mail.example" },
    { name: "Lisbon Stays", address: "bookings@lisbon-stays.example" },
    { name: "Corner Books", address: "orders@cornerbooks.example" },
  ],
  topics: ["Holiday plans", "Lisbon trip", "School play", "Book order", "Plumber visit"],
  labels: ["Family", "Travel", "Receipts"],
};

type Body = { kind: "plain" | "qp-latin1" | "alternative" | "html-base64" | "attachment"; text: string };

export interface MailOptions {
  count: number;
  startMs: number;
  /** Index of the message that gets a 200+ KB body (or -1). */
  hugeIndex: number;
  idPrefix: string;
}

/** The mbox text of one mailbox. */
export function buildMbox(rng: Rng, box: Mailbox, options: MailOptions): string {
  const out: string[] = [];
  const threads: { subject: string; root: string; last: string; thrid: string; refs: string[] }[] = [];
  let time = options.startMs;
  for (let i = 0; i < options.count; i++) {
    time += rng.int(20, 60 * 24) * 60_000;
    const contact = rng.pick(box.contacts);
    const outgoing = rng.chance(0.2);
    const from = outgoing ? box.owner : contact;
    const to = outgoing ? contact : box.owner;
    const messageId = `<${options.idPrefix}.${i}.${rng.int(1000, 9999)}@${box.domain}>`;
    let subject: string;
    let headers: string[] = [];
    let thrid: string;
    const reply = threads.length > 0 && rng.chance(0.4) ? rng.pick(threads) : null;
    if (reply) {
      subject = reply.subject.startsWith("Re: ") ? reply.subject : `Re: ${reply.subject}`;
      headers = [`In-Reply-To: ${reply.last}`, `References: ${[...reply.refs, reply.last].join(" ")}`];
      thrid = reply.thrid;
      reply.refs.push(reply.last);
      reply.last = messageId;
    } else {
      subject = `${rng.pick(box.topics)}${rng.chance(0.5) ? ` (${rng.pick(["draft", "update", "v2", "notes", "question"])})` : ""}`;
      thrid = String(1790000000000000000n + BigInt(options.idPrefix.length * 1_000_000 + i * 7919));
      threads.push({ subject, root: messageId, last: messageId, thrid, refs: [] });
    }
    const labels = [outgoing ? "Sent" : "Inbox", ...(rng.chance(0.5) ? [rng.pick(box.labels)] : [])];
    if (!outgoing && rng.chance(0.3)) labels.push("Unread");
    const text = bodyText(rng, { i, hugeIndex: options.hugeIndex, contact: contact.name, subject });
    const kind = bodyKind(rng, i);
    const date = new Date(time);
    out.push(
      [
        `From ${from.address} ${date.toUTCString().replace(/,/g, "")}`,
        `X-GM-THRID: ${thrid}`,
        `X-Gmail-Labels: ${labels.map((l) => (l.includes(",") ? `"${l}"` : l)).join(",")}`,
        `Message-ID: ${messageId}`,
        `Date: ${date.toUTCString().replace("GMT", "+0000")}`,
        `From: ${address(from)}`,
        `To: ${address(to)}`,
        ...(rng.chance(0.25) ? [`Cc: ${address(rng.pick(box.contacts))}`] : []),
        `Subject: ${subject}`,
        ...headers,
        "MIME-Version: 1.0",
        ...renderBody({ kind, text }, `${options.idPrefix}-${i}`),
        "",
      ]
        .join("\n")
        .replace(/^From /gm, (m, offset: number) => (offset === 0 ? m : `>${m}`)),
    );
  }
  return out.join("\n");
}

function address(person: { name: string; address: string }): string {
  return `${person.name} <${person.address}>`;
}

function bodyKind(rng: Rng, i: number): Body["kind"] {
  // The first few messages pin every MIME shape; the rest mix them.
  const fixed: Body["kind"][] = ["alternative", "qp-latin1", "html-base64", "attachment", "plain"];
  if (i < fixed.length) return fixed[i]!;
  return rng.pick(["plain", "plain", "plain", "alternative", "qp-latin1", "html-base64", "attachment"]);
}

function bodyText(
  rng: Rng,
  options: { i: number; hugeIndex: number; contact: string; subject: string },
): string {
  const greeting = `Hi ${options.contact.split(" ")[0]},`;
  let core: string;
  if (options.i === options.hugeIndex) core = longText(rng, 210_000);
  else if (rng.chance(0.15)) core = longText(rng, rng.int(5_000, 40_000));
  else core = [paragraph(rng), paragraph(rng)].join("\n\n");
  return `${greeting}\n\nRe ${options.subject}: ${core}\n\nFrom my desk,\nSam`;
}

function renderBody(body: Body, boundaryId: string): string[] {
  const boundary = `=_pdpp_${boundaryId}`;
  switch (body.kind) {
    case "plain":
      return ["Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 8bit", "", body.text];
    case "qp-latin1":
      return [
        "Content-Type: text/plain; charset=iso-8859-1",
        "Content-Transfer-Encoding: quoted-printable",
        "",
        quotedPrintableLatin1(`${body.text}\n\nHälsningar från Göteborg — à bientôt, Frédéric`),
      ];
    case "alternative":
      return [
        `Content-Type: multipart/alternative; boundary="${boundary}"`,
        "",
        `--${boundary}`,
        "Content-Type: text/plain; charset=utf-8",
        "Content-Transfer-Encoding: quoted-printable",
        "",
        quotedPrintableUtf8(body.text),
        `--${boundary}`,
        "Content-Type: text/html; charset=utf-8",
        "Content-Transfer-Encoding: base64",
        "",
        base64Lines(`<html><body>${toHtml(body.text)}</body></html>`),
        `--${boundary}--`,
      ];
    case "html-base64":
      return [
        "Content-Type: text/html; charset=utf-8",
        "Content-Transfer-Encoding: base64",
        "",
        base64Lines(`<html><body>${toHtml(body.text)}</body></html>`),
      ];
    case "attachment":
      return [
        `Content-Type: multipart/mixed; boundary="${boundary}"`,
        "",
        `--${boundary}`,
        "Content-Type: text/plain; charset=utf-8",
        "",
        body.text,
        `--${boundary}`,
        `Content-Type: application/pdf; name="notes-${boundaryId}.pdf"`,
        `Content-Disposition: attachment; filename="notes-${boundaryId}.pdf"`,
        "Content-Transfer-Encoding: base64",
        "",
        base64Lines(`%PDF-1.4\n% sample attachment ${boundaryId}\n${"0".repeat(2048)}\n%%EOF\n`),
        `--${boundary}--`,
      ];
  }
}

function toHtml(text: string): string {
  const escaped = text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  return escaped
    .split("\n\n")
    .map((p) => `<p>${p.replace(/\n/g, "<br>")}</p>`)
    .join("\n");
}

function base64Lines(text: string): string {
  return (
    Buffer.from(text, "utf8")
      .toString("base64")
      .match(/.{1,76}/g) ?? []
  ).join("\n");
}

function quotedPrintableBytes(bytes: Buffer): string {
  const lines: string[] = [];
  let line = "";
  for (const byte of bytes) {
    if (byte === 0x0a) {
      lines.push(line);
      line = "";
      continue;
    }
    const literal = byte >= 33 && byte <= 126 && byte !== 61;
    const piece =
      literal || byte === 0x20
        ? String.fromCharCode(byte)
        : `=${byte.toString(16).toUpperCase().padStart(2, "0")}`;
    if (line.length + piece.length > 75) {
      lines.push(`${line}=`);
      line = "";
    }
    line += piece;
  }
  lines.push(line);
  // A trailing space on a line must be encoded, or transports may strip it.
  return lines.map((l) => l.replace(/ (=?)$/, "=20$1")).join("\n");
}

function quotedPrintableUtf8(text: string): string {
  return quotedPrintableBytes(Buffer.from(text, "utf8"));
}

function quotedPrintableLatin1(text: string): string {
  return quotedPrintableBytes(Buffer.from(text.replace(/—/g, "-"), "latin1"));
}
