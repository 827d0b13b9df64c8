// What a hook prints is as untrusted as what a command prints: a hook that reads `.env` must not hand
// nex's key to the model (as context, a Stop reason, a block reason) any more than `cat .env` could.
import type { SecretScrubber } from "../../session/index.ts";
import type { Hooks } from "../hooks/index.ts";

/** The hooks with every text they return scrubbed of nex's secrets. */
export function scrubbedHooks(hooks: Hooks, scrubber: SecretScrubber): Hooks {
  if (!scrubber.active || hooks.count === 0) return hooks;
  const text = (value: string | null) => (value === null ? null : scrubber.scrub(value).text);
  return {
    count: hooks.count,
    preToolUse: async (call) => text(await hooks.preToolUse(call)),
    postToolUse: async (call, outcome) => text(await hooks.postToolUse(call, outcome)),
    async userPromptSubmit(prompt) {
      const decision = await hooks.userPromptSubmit(prompt);
      return "blocked" in decision
        ? { blocked: text(decision.blocked) ?? "" }
        : { context: text(decision.context) };
    },
    stop: async (finalText, again) => text(await hooks.stop(finalText, again)),
    sessionStart: async (source) => text(await hooks.sessionStart(source)),
    notification: (message) => hooks.notification(message),
    interrupt: () => hooks.interrupt(),
  };
}
