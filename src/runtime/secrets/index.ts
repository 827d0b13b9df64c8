export { concealInProcEnviron } from "./conceal-environment.ts";
export { scrubbedTools } from "./scrubbed-tools.ts";
export { concealedValues, sessionScrubber, toolEnvironment } from "./session-secrets.ts";
export { redactCallUrls } from "./url-redaction.ts";

// Loaded on first use: most sessions never need these (ARCHITECTURE.md, "loads when first used").
type ScrubbedHooksModule = typeof import("./scrubbed-hooks.ts");
export const scrubbedHooks = async (...args: Parameters<ScrubbedHooksModule["scrubbedHooks"]>) =>
  (await import("./scrubbed-hooks.ts")).scrubbedHooks(...args);
