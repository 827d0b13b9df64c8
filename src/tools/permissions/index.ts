// Whether a call may run: the rules, the hazard guard, files that run code (hooks, configs).
export { mayChange } from "./coverage-hazards.ts";
export { type CommandRules, createPermissions } from "./permissions.ts";
export { workspaceHooksDir } from "./trusted-files.ts";
