// Whether every command nex runs here is confined: a folder nex holds read-only inside the workspace
// (the chat folder `--chat` serves) is safe only while no command runs unconfined.
import { createCommandSandbox, type SandboxSettings } from "../../tools/index.ts";

/** Why commands would run unconfined here, or null when the sandbox confines them. */
export function unconfinedReason(
  config: { workspace: string; sandbox: SandboxSettings },
  env: Record<string, string | undefined>,
): string | null {
  if (config.sandbox.mode === "off") return "the sandbox is off (--sandbox off, or the config)";
  const state = createCommandSandbox(config.workspace, config.sandbox, {
    platform: process.platform,
    path: env.PATH,
    uid: process.getuid?.() ?? -1,
    home: env.HOME,
  }).state();
  return state.type === "unavailable" ? `the sandbox cannot start here: ${state.reason}` : null;
}
