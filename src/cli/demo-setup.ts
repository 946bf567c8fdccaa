// What `pdpp demo` builds: a home with the sample dataset imported through the real importers and
// one grant over every stream (the client token is returned once, for the printed setup).
import { join } from "node:path";
import { homePaths } from "../config/home.js";
import type { SchemaAnswer } from "../core/wire.js";
import type { ImportFileResult } from "../importers/import-file.js";
import { importSampleData } from "../sample/import-sample.js";
import { writeSampleData } from "../sample/write-sample.js";
import { createGrant } from "./commands/grant.js";
import { initHome } from "./commands/init.js";
import { openHomeApp } from "./context.js";
import { buildGrantRequest } from "./grant-options.js";
import { ownerCall } from "./rs-call.js";

export const DEMO_HOME = ".pdpp-demo";
export const DEMO_CLIENT = "demo-agent";

export interface DemoSetup {
  home: string;
  imports: ImportFileResult[];
  grantId: string;
  token: string;
  /** Every granted stream as connector_key:stream. */
  streams: string[];
}

export async function setUpDemo(home: string, options: { databaseUrl?: string } = {}): Promise<DemoSetup> {
  await initHome(home, options);
  const files = await writeSampleData(join(home, "sample"));
  const app = await openHomeApp(home, options);
  try {
    // Re-running the demo re-imports the same files: unchanged records are no-ops.
    const imports = await importSampleData(app, files, { stateDir: homePaths(home).importState });
    const schema = await ownerCall<SchemaAnswer>(app, { method: "GET", path: "/v1/schema" });
    const streams = schema.connectors.flatMap((c) => c.streams.map((s) => `${c.connector_key}:${s.name}`));
    const created = await createGrant(
      app,
      buildGrantRequest({ client: DEMO_CLIENT, stream: streams, purpose: "pdpp demo: every sample stream" }),
    );
    return { home, imports, grantId: created.grant.grant_id, token: created.token, streams };
  } finally {
    await app.close();
  }
}
