import type { AgentEvent } from "../protocol/index.ts";
import type { NexConfig } from "./config.ts";
import { createHooks, describeHooks, type HookHost, type Hooks, loadHooks } from "./hooks/index.ts";

/** The hooks that run in this session; a project's wait for the user's approval, said once. */
export async function openHooks(
  config: NexConfig,
  events: AgentEvent[],
  host: HookHost,
): Promise<Hooks> {
  const loaded = await loadHooks({
    workspace: config.workspace,
    userHooks: config.hooks,
    configLabel: config.configPath ?? "the config file",
    dataDir: config.dataDir,
    privatePaths: [config.dataDir],
  });
  for (const problem of loaded.problems) events.push({ type: "notice", message: problem });
  if (loaded.unapproved) {
    const list = describeHooks(loaded.unapproved.entries).slice(0, 5).join("; ");
    events.push({
      type: "notice",
      message: `This project has hooks that nex does not run until you approve them (a hook is a command run on your machine): ${list}. Review them with \`nex hooks\`, then approve with \`nex hooks approve\` in this folder.`,
    });
  }
  return createHooks(loaded.active, host);
}
