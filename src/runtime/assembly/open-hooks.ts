import { existsSync } from "node:fs";
import { join } from "node:path";
import type { AgentEvent } from "../../protocol/index.ts";
import type { NexConfig } from "../config/index.ts";
import { consentPlace } from "../consent/index.ts";
import type { HookHost, Hooks } from "../hooks/index.ts";

// Where a project's hooks may be set (hook-sources.ts reads them): none there, no hooks to load.
const PROJECT_SETTINGS = [
  ".nex/settings.json",
  ".claude/settings.json",
  ".claude/settings.local.json",
];

/** No hook configured anywhere: every point is a no-op, and the hooks' modules are never loaded. */
export const NO_HOOKS: Hooks = {
  count: 0,
  preToolUse: async () => null,
  postToolUse: async () => null,
  userPromptSubmit: async () => ({ context: null }),
  stop: async () => null,
  sessionStart: async () => null,
  notification: async () => {},
  interrupt: () => {},
};

/** The hooks that run in this session; a project's wait for the user's approval, said once. */
export async function openHooks(
  config: NexConfig,
  events: AgentEvent[],
  host: HookHost,
  env: Record<string, string | undefined>,
): Promise<Hooks> {
  if (
    config.hooks === undefined &&
    !PROJECT_SETTINGS.some((name) => existsSync(join(config.workspace, name)))
  )
    return NO_HOOKS;
  const { createHooks, describeHooks, loadHooks } = await import("../hooks/index.ts");
  const consent = consentPlace({
    env,
    workspace: config.workspace,
    writable: config.sandbox.writable ?? [],
  });
  const loaded = await loadHooks({
    workspace: config.workspace,
    userHooks: config.hooks,
    configLabel: config.configPath ?? "the config file",
    consent,
    privatePaths: [config.dataDir],
  });
  for (const problem of loaded.problems) events.push({ type: "notice", message: problem });
  if (loaded.unapproved) {
    const list = describeHooks(loaded.unapproved.entries).slice(0, 5).join("; ");
    events.push({
      type: "notice",
      message: `This project has hooks that nex does not run until you approve them (a hook is a command run on your machine): ${list}. Review them with \`nex hooks\`, then approve with \`nex hooks approve\` in this folder.${consent.refused ? ` (nex keeps no approval at ${consent.file}: ${consent.refused})` : ""}`,
    });
  }
  return createHooks(loaded.active, host);
}
