// Plain mbox files of N small messages for runner, crash and CLI tests.

export function simpleMessage(i: number, bodyChars = 200): string {
  const date = new Date(Date.UTC(2024, 0, 1) + i * 60_000);
  return [
    `From sender${i % 17}@example.com ${date.toUTCString().replace(/,/g, "")}`,
    `Message-ID: <msg-${i}@example.com>`,
    `From: Sender ${i % 17} <sender${i % 17}@example.com>`,
    "To: me@example.com",
    `Subject: Message number ${i}`,
    `Date: ${date.toUTCString()}`,
    "",
    `Body of message ${i}. ${"lorem ipsum ".repeat(Math.ceil(bodyChars / 12)).slice(0, bodyChars)}`,
    "",
  ].join("\n");
}

export function simpleMbox(count: number, bodyChars = 200): string {
  const parts: string[] = [];
  for (let i = 0; i < count; i++) parts.push(simpleMessage(i, bodyChars));
  return parts.join("\n");
}
