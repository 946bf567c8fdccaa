// The behavioural suite every Store implementation must pass (SQLite and Postgres run the same one).
import { describe } from "node:test";
import type { TestBackend } from "../helpers/backends.js";
import { adminContract } from "./contract/admin.js";
import { aggregateContract } from "./contract/aggregate.js";
import { changesResumeContract } from "./contract/changes-resume.js";
import { ingestContract } from "./contract/ingest.js";
import { readsContract } from "./contract/reads.js";
import { searchContract } from "./contract/search.js";
import { searchScopeContract } from "./contract/search-scope.js";
import { windowsContract } from "./contract/windows.js";

export function runStoreContract(backend: TestBackend): void {
  describe(`store contract: ${backend.name}`, () => {
    adminContract(backend);
    ingestContract(backend);
    changesResumeContract(backend);
    readsContract(backend);
    windowsContract(backend);
    searchContract(backend);
    searchScopeContract(backend);
    aggregateContract(backend);
  });
}
