export { concealInProcEnviron } from "./conceal-environment.ts";
export type { EventRedactor } from "./event-redaction.ts";
export { createEventRedactor, textRedaction } from "./event-redaction.ts";
export { scrubbedTools } from "./scrubbed-tools.ts";
export { concealedValues, sessionScrubber, toolEnvironment } from "./session-secrets.ts";

// Loaded on first use: most sessions never need these (ARCHITECTURE.md, "loads when first used").
type ScrubbedHooksModule = typeof import("./scrubbed-hooks.ts");
export const scrubbedHooks = async (...args: Parameters<ScrubbedHooksModule["scrubbedHooks"]>) =>
  (await import("./scrubbed-hooks.ts")).scrubbedHooks(...args);
