// The tool host's parts: what one session's calls share (host-state.ts), how a call is checked
// (host-permissions.ts, dispatch.ts) and run (run-call.ts, in order through change-queue.ts), the tool
// registry, jobs and undo. ../index.ts composes them into createToolHost.
export { createChangeQueue } from "./change-queue.ts";
export { dispatch } from "./dispatch.ts";
export { createJobsFacade } from "./host-jobs.ts";
export type { ToolHostOptions, WorkspaceToolHost } from "./host-options.ts";
export { checkCall, createHostPermissions } from "./host-permissions.ts";
export { createHostState } from "./host-state.ts";
export { createUndoFacade } from "./host-undo.ts";
export { recordAttachment } from "./record-attachment.ts";
export { runCall } from "./run-call.ts";
export { createToolRegistry, toolSpecs } from "./tool-registry.ts";
