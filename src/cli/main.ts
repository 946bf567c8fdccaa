// Entry point of the `pdpp` command (bin/pdpp.js imports this): run the program, set the exit code.
import { runCli } from "./program.js";

process.exitCode = await runCli(process.argv);
