// Small helpers for MCP contract tests: call a tool and split its two channels.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

export interface Channels {
  isError: boolean;
  text: string;
  structured: Record<string, unknown>;
  content: { type: string; text?: string; uri?: string }[];
}

export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Channels> {
  const result = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: { type: string; text?: string; uri?: string }[];
    structuredContent?: Record<string, unknown>;
  };
  const text = result.content
    .filter((c) => c.type === "text")
    .map((c) => c.text ?? "")
    .join("\n");
  return {
    isError: result.isError === true,
    text,
    structured: result.structuredContent ?? {},
    content: result.content,
  };
}

/** The error envelope carried in an error result's text (second line). */
export function errorOf(channels: Channels): { code: string; [k: string]: unknown } {
  const line = channels.text.split("\n")[1] ?? "{}";
  return (JSON.parse(line) as { error: { code: string } }).error;
}

/** Size of the larger channel, in characters. */
export function channelChars(channels: Channels): { text: number; structured: number } {
  const text = channels.content.reduce((n, c) => n + (c.text?.length ?? 0) + (c.uri?.length ?? 0), 0);
  return { text, structured: JSON.stringify(channels.structured).length };
}

/** Well-formed UTF-16: no lone surrogate (in a `u` regex a proper pair is one code point, not Cs). */
export function isWellFormedText(text: string): boolean {
  return !/\p{Cs}/u.test(text);
}
