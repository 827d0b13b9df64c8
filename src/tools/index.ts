import type { ReadRecord } from "../protocol/index.ts";
import { allTools, latestTodos, todoNote } from "./builtin/index.ts";
import type { PartsStore } from "./files/index.ts";
import {
  createToolRegistry,
  loadToolEngine,
  type ToolHostOptions,
  type WorkspaceToolHost,
} from "./host/index.ts";
import { createCommandSandbox } from "./sandbox/index.ts";

export { dispatch, type ToolHostOptions, toolSpecs, type WorkspaceToolHost } from "./host/index.ts";
export {
  describeImage,
  extensionOf,
  fitImage,
  IMAGE_NAME,
  imageForModel,
  imageHeader,
} from "./images/index.ts";
export {
  defineJsonSchemaTool,
  type JsonSchemaToolDefinition,
  ToolSchemaError,
} from "./json-schema-tool.ts";
export type { CommandRules } from "./permissions/index.ts";
export { createResultStore, type ResultStore, resultCapForWindow } from "./results/index.ts";
export {
  allowHostsProblem,
  type CommandSandbox,
  createCommandSandbox,
  describeNetwork,
  describeSandbox,
  HOST_PRESETS,
  type Launch,
  networkMode,
  probeSandbox,
  type SandboxMode,
  type SandboxProbe,
  type SandboxSettings,
  type SandboxState,
} from "./sandbox/index.ts";
export type { OutputCheck, Validate } from "./schema/index.ts";
export { defineTool, type Tool, type ToolContext, ToolFailure } from "./tool.ts";
export type {
  RunChanges,
  SnapshotLimits,
  UndoOptions,
  UndoPreviewStep,
  UndoReport,
} from "./undo/index.ts";
export { type OwnFileRead, readOwnFile, readWorkspaceOwnFile } from "./workspace/index.ts";
export { latestTodos, todoNote };

// Loaded on first use: a run that calls no tool, starts no hook or server and undoes nothing never
// loads them (ARCHITECTURE.md, "loads when first used").
type Files = typeof import("./files/index.ts");
export const atomicWrite = async (...args: Parameters<Files["atomicWrite"]>) =>
  (await import("./files/index.ts")).atomicWrite(...args);
type Search = typeof import("./search/index.ts");
export const describeSearch = async (...args: Parameters<Search["describeSearch"]>) =>
  (await import("./search/index.ts")).describeSearch(...args);
type Schema = typeof import("./schema/index.ts");
export const compileJsonSchema = async (...args: Parameters<Schema["compileJsonSchema"]>) =>
  (await import("./schema/index.ts")).compileJsonSchema(...args);
export const checkOutput = async (...args: Parameters<Schema["checkOutput"]>) =>
  (await import("./schema/index.ts")).checkOutput(...args);
/** Processes as nex starts them (its mark, process groups, the lifeline, leftovers): hooks', servers'. */
export const loadProcesses = () => import("./shell/index.ts");
/** Undo outside a session (`nex undo`): previews, the last session that changed files, the restore. */
export const loadUndo = () => import("./undo/index.ts");

/** `changeMark`'s answer before the working host loaded: no checkpoint of this process exists yet. */
const BEFORE_ANY_CALL = -1;

/**
 * Builds the tools of one session: read_file, write_file, edit_file, bash, grep, glob, list_dir,
 * jobs, todo_write and the added ones. What the model is offered and what a call would be comes
 * from the tools' definitions; the working host (`host/host-engine.ts`: permissions, workspace,
 * checkpoints, jobs) loads at the first call or question that needs it, so a run that calls no tool
 * never loads it. Until then nothing ran: no job, no checkpoint, no staged part, no read.
 */
export function createToolHost(options: ToolHostOptions): WorkspaceToolHost {
  let parts: PartsStore | null = null;
  const registry = createToolRegistry(
    [...allTools(() => parts as PartsStore), ...(options.extraTools ?? [])],
    options.dynamicTools,
  );
  const env = options.env ?? process.env;
  const sandbox = createCommandSandbox(
    options.workspace,
    options.sandbox ?? { mode: "off", network: true },
    { platform: process.platform, path: env.PATH, uid: process.getuid?.() ?? -1, home: env.HOME },
  );
  let mode = options.mode;
  let ledger: ReadRecord[] = options.ledger ?? [];
  let promptBegun = false;
  let engine: WorkspaceToolHost | null = null;
  let markAtLoad = 0;
  let loading: Promise<WorkspaceToolHost> | null = null;
  const load = () =>
    (loading ??= loadToolEngine().then(async ({ createToolEngine }) => {
      const made = createToolEngine({ ...options, mode, ledger }, registry, sandbox);
      parts = made.parts;
      markAtLoad = await made.host.changeMark();
      if (promptBegun) made.host.beginPrompt();
      engine = made.host;
      return made.host;
    }));
  const registered = (name: string) => {
    registry.refresh();
    return registry.tools.get(name);
  };
  return {
    specs: () => registry.specs(),
    deferredTools: () => registry.deferred(),
    // A call that reaches out may ask a person, so it is no read a read-only agent may make unasked.
    readOnly: (name) => registered(name)?.mutates === false && !registered(name)?.reach,
    // ...but it may run beside other calls: the loop asks its questions one at a time, in order.
    parallel: (name) => {
      const tool = registered(name);
      return tool?.mutates === false || tool?.parallel === true;
    },
    sandbox,
    permission: async (call) => (await load()).permission(call),
    execute: async (call, signal) => (await load()).execute(call, signal),
    // Asked only after a permission check, which loaded the host.
    rememberApproval: (call) => {
      if (engine) engine.rememberApproval(call);
      else void load().then((host) => host.rememberApproval(call));
    },
    savableRules: async (call) => (await load()).savableRules(call),
    setMode: (next) => {
      if (engine) engine.setMode(next);
      else mode = next;
    },
    ledger: () => engine?.ledger() ?? ledger,
    forgetConversation: async () => {
      if (engine) await engine.forgetConversation();
      else ledger = [];
    },
    notices: () => engine?.notices?.() ?? [],
    endOfPrompt: async () => (engine?.endOfPrompt ? engine.endOfPrompt() : []),
    stopJobs: async () => (engine ? engine.stopJobs() : []),
    jobsForUser: async (action, id) => (await load()).jobsForUser(action, id),
    recordAttachment: async (name, shown) => (await load()).recordAttachment(name, shown),
    filesNamed: async (name, limit, signal) => (await load()).filesNamed(name, limit, signal),
    unfinishedWrites: () => engine?.unfinishedWrites?.() ?? [],
    discardUnfinished: async () => (engine?.discardUnfinished ? engine.discardUnfinished() : []),
    beginPrompt: () => {
      if (engine) engine.beginPrompt();
      else promptBegun = true;
    },
    undo: async (steps) => (await load()).undo(steps),
    undoPreview: async () => (await load()).undoPreview(),
    undoSteps: async () => (await load()).undoSteps(),
    sessionDiff: async () => (await load()).sessionDiff(),
    changeMark: async () => (engine ? engine.changeMark() : BEFORE_ANY_CALL),
    // A mark taken before the host loaded is where this process's checkpoints begin.
    changesSince: async (mark) => {
      if (!engine) return { paths: [], unmeasured: [] };
      return engine.changesSince(mark === BEFORE_ANY_CALL ? markAtLoad : mark);
    },
  };
}
