export { concealInProcEnviron } from "./conceal-environment.ts";
export { scrubbedHooks } from "./scrubbed-hooks.ts";
export { scrubbedTools } from "./scrubbed-tools.ts";
export { concealedValues, sessionScrubber, toolEnvironment } from "./session-secrets.ts";
export { redactCallUrls } from "./url-redaction.ts";
