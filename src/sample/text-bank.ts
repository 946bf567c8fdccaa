// Words and sentences for synthetic but readable sample text (mail bodies, chats, transaction notes).
import type { Rng } from "./prng.js";

const SENTENCES = [
  "Thanks for pulling this together so quickly.",
  "I went through the numbers again and they hold up.",
  "The vendor confirmed the delivery window for next Tuesday.",
  "Can we move the review to Thursday afternoon?",
  "I've attached the notes from the last call for reference.",
  "Marketing wants a final answer before the end of the month.",
  "The staging environment is back up after the database migration.",
  "Let me know if anything in the draft looks off to you.",
  "We should loop in legal before we sign anything.",
  "Budget for the second half is still pending approval.",
  "The customer reported the issue again this morning.",
  "I booked the meeting room on the third floor.",
  "Please double-check the figures in section four.",
  "The new onboarding flow cut drop-off by about a fifth.",
  "Travel is approved, but keep receipts for everything.",
  "The offsite will be in Lisbon this year.",
  "Our latency dashboard shows the p95 creeping up since the release.",
  "I'll send the updated contract once finance signs off.",
  "The kids' school play is on Friday at six.",
  "Grandma asked whether we are coming for the holidays.",
  "The plumber can come on Saturday morning.",
  "Don't forget to water the plants while we're away.",
];

export function paragraph(rng: Rng, sentences = rng.int(2, 5)): string {
  const out: string[] = [];
  for (let i = 0; i < sentences; i++) out.push(rng.pick(SENTENCES));
  return out.join(" ");
}

/** Paragraphs joined by blank lines until the text reaches `chars` characters. */
export function longText(rng: Rng, chars: number): string {
  const parts: string[] = [];
  let size = 0;
  let section = 1;
  while (size < chars) {
    const p = parts.length % 6 === 0 ? `Section ${section++}\n\n${paragraph(rng, 6)}` : paragraph(rng, 6);
    parts.push(p);
    size += p.length + 2;
  }
  return parts.join("\n\n");
}
