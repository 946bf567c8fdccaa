// Runs the store contract suite against the SQLite store (a fresh temp-dir database per suite).
import { sqliteBackend } from "../helpers/backends.js";
import { runStoreContract } from "./contract.js";

runStoreContract(sqliteBackend);
