// `pdpp owner passphrase`: set or change the passphrase the owner signs in to the web console
// with; stored only as a scrypt hash (src/web/passphrase.ts), and every browser session ends.
import type { Command } from "commander";
import { homePaths } from "../../config/home.js";
import { readOwnerToken } from "../../config/owner-token.js";
import { PdppError } from "../../core/errors.js";
import { openStoreAt } from "../../store/open.js";
import { hashPassphrase, passphraseProblem } from "../../web/passphrase.js";
import type { CliContext } from "../context.js";
import { promptHidden, readStdinSecret } from "../prompt-secret.js";

async function readNewPassphrase(fromStdin: boolean): Promise<string> {
  if (fromStdin) return readStdinSecret();
  const first = await promptHidden("new owner passphrase: ");
  const problem = passphraseProblem(first);
  if (problem) throw new PdppError("invalid_request", problem);
  const second = await promptHidden("repeat it: ");
  if (first !== second)
    throw new PdppError("invalid_request", "the two passphrases differ; nothing changed.");
  return first;
}

export function register(program: Command, context: CliContext): void {
  const owner = program.command("owner").description("the owner's own credentials");
  owner
    .command("passphrase")
    .description(
      "set or change the passphrase for signing in to the web console (ends every browser session)",
    )
    .option("--stdin", "read the passphrase from stdin (for scripts) instead of prompting twice")
    .action(async (options: { stdin?: boolean }) => {
      const home = context.home;
      if (!readOwnerToken(home)) {
        throw new PdppError(
          "invalid_request",
          `no pdpp home at ${home} (missing ${homePaths(home).ownerToken}); run \`pdpp init\` first or pass --home.`,
        );
      }
      const passphrase = await readNewPassphrase(options.stdin === true);
      const problem = passphraseProblem(passphrase);
      if (problem) throw new PdppError("invalid_request", problem);
      if (options.stdin !== true && process.stderr.isTTY)
        process.stderr.write("hashing (scrypt, 128 MiB)…\n");
      const hash = await hashPassphrase(passphrase);
      const opened = await openStoreAt(home, { databaseUrl: context.databaseUrl });
      try {
        await opened.store.setOwnerPassphraseHash(hash, new Date().toISOString());
      } finally {
        await opened.close();
      }
      process.stdout.write(
        "owner passphrase set; sign in at <server>/signin (every earlier session has ended)\n",
      );
    });
}
