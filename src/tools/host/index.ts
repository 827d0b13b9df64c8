// The tool host's parts: the tool registry (what the model is offered, what a call is), and the
// working host (`host-engine.ts`: what one session's calls share in host-state.ts, how a call is
// checked in host-permissions.ts and dispatch.ts and run in run-call.ts, in order through
// change-queue.ts, jobs and undo), loaded at the first call. ../index.ts composes them into
// createToolHost.
export { dispatch } from "./dispatch.ts";
export type { ToolHostOptions, WorkspaceToolHost } from "./host-options.ts";
export { createToolRegistry, type ToolRegistry, toolSpecs } from "./tool-registry.ts";

/** The working host's module, loaded at a session's first call: a run that calls no tool never loads it. */
export const loadToolEngine = () => import("./host-engine.ts");
