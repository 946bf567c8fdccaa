// Runs the store contract suite against the Postgres store (its own schema per suite, dropped after).
// Skips without PDPP_TEST_PG_URL; under CI=true a missing URL fails (see test/helpers/pg.ts).
import { testBackends } from "../helpers/backends.js";
import { runStoreContract } from "./contract.js";

const postgres = testBackends().find((b) => b.name === "postgres");
// Without a URL, testBackends() has registered this file's Postgres half as skipped.
if (postgres) runStoreContract(postgres);
