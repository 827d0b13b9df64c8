import type { ToolHost } from "../../protocol/index.ts";
import type { Hooks } from "./hook-runner.ts";

/**
 * The tool host with the user's hooks around each call: a PreToolUse hook can refuse a call (its
 * reason goes to the model as any refusal's does), a PostToolUse hook can add to what the model reads.
 */
export function hookedTools<T extends ToolHost>(host: T, hooks: Hooks): T {
  if (hooks.count === 0) return host;
  return {
    ...host,
    async permission(call) {
      const blocked = await hooks.preToolUse(call);
      if (blocked !== null)
        return { type: "deny", reason: `a PreToolUse hook blocked it: ${blocked}` };
      return host.permission(call);
    },
    async execute(call, signal) {
      const outcome = await host.execute(call, signal);
      const added = await hooks.postToolUse(call, outcome);
      return added
        ? { ...outcome, content: `${outcome.content}\n\n[PostToolUse hook] ${added}` }
        : outcome;
    },
  };
}
