// Reading an import back as an agent does: a client token granted every stream of the given manifests,
// and the pdpp MCP server over the SDK client, answering through the same RS the import wrote to.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Manifest } from "../../src/core/manifest.js";
import { InProcessRsClient } from "../../src/mcp/rs-client.js";
import { createApp } from "../../src/rs/app.js";
import { BASE_URL, createClient, grantAll } from "../mcp/fixtures/world.js";
import type { OwnerApp } from "./owner-app.js";

export interface AgentView {
  client: Client;
  /** A tool's structuredContent (throws with the text when the call failed). */
  call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
}

export async function agentView(app: OwnerApp, manifests: Manifest[]): Promise<AgentView> {
  const token = await grantAll(app.store, manifests);
  const rs = createApp({ store: app.store, bindHost: "127.0.0.1", publicUrl: BASE_URL });
  const client = await createClient(new InProcessRsClient((r, env) => rs.fetch(r, env), token, BASE_URL));
  return {
    client,
    async call(name, args) {
      const result = await client.callTool({ name, arguments: args });
      if (result.isError) {
        const text = (result.content as { text?: string }[]).map((c) => c.text).join("\n");
        throw new Error(`${name} failed: ${text}`);
      }
      return result.structuredContent as Record<string, unknown>;
    },
  };
}
