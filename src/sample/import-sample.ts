// Loading the sample dataset through the owner API (what `pdpp demo` does after writeSampleData).
import { loadManifestFile } from "../importers/generic.js";
import { type ImportFileResult, importFile } from "../importers/import-file.js";
import type { OwnerApi } from "../importers/owner-sink.js";
import type { SampleFiles } from "./write-sample.js";

export async function importSampleData(
  api: OwnerApi,
  files: SampleFiles,
  options: { stateDir?: string } = {},
): Promise<ImportFileResult[]> {
  const results: ImportFileResult[] = [];
  for (const item of files.imports) {
    results.push(
      await importFile(api, {
        kind: item.kind,
        path: item.path,
        connectionLabel: item.connectionLabel,
        stateDir: options.stateDir,
        generic: item.manifestPath ? { manifest: loadManifestFile(item.manifestPath) } : undefined,
      }),
    );
  }
  return results;
}
