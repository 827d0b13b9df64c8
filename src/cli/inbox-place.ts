// `--inbox` carries the orchestrator's authority: what arrives there reaches the model as the
// orchestrator's word. An inbox that a repository ships or a sandboxed command can write (inside the
// workspace, in a folder the sandbox makes writable) would let a command speak as the orchestrator,
// so it is refused before anything runs.
import { resolve } from "node:path";
import { ConfigError, type ConfigFlags, resolveConfig } from "../runtime/config/index.ts";
import { commandWritable } from "../runtime/consent/index.ts";

/** Throws a ConfigError with the fix when commands could write the inbox at `path`. */
export function refuseWritableInbox(
  path: string,
  flags: ConfigFlags,
  env: Record<string, string | undefined>,
  cwd: string,
): void {
  const config = resolveConfig(flags, env, cwd);
  const where = commandWritable(resolve(cwd, path), {
    workspace: config.workspace,
    writable: config.sandbox.writable ?? [],
    home: env.HOME,
  });
  if (where)
    throw new ConfigError(
      `--inbox ${path} lies ${where}: a command nex runs could write to it and speak as the orchestrator. Put the inbox in a folder outside the workspace that only the orchestrator writes (such as a temporary folder of its own), and pass that path.`,
    );
}
