// The user's hooks, in Claude Code's configuration and protocol: commands that follow a session's
// events (a tool call, a prompt, the end of a task) and may stop what is about to happen.
export { HOOK_EVENTS, type HookEntry, HooksSchema } from "./hook-config.ts";
export { createHooks, type HookHost, type Hooks } from "./hook-runner.ts";
export {
  approveProjectHooks,
  describeHooks,
  type LoadedHooks,
  loadHooks,
  PROJECT_SETTINGS,
} from "./hook-sources.ts";
export { hookedTools } from "./hooked-tools.ts";
export { hooksReport } from "./hooks-report.ts";
