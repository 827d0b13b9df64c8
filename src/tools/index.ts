import { allTools, latestTodos, todoNote } from "./builtin/index.ts";
import { describeStaging } from "./files/index.ts";
import {
  checkCall,
  createChangeQueue,
  createHostPermissions,
  createHostState,
  createJobsFacade,
  createToolRegistry,
  createUndoFacade,
  recordAttachment,
  runCall,
  type ToolHostOptions,
  type WorkspaceToolHost,
} from "./host/index.ts";

export {
  atomicWrite,
  describeImage,
  extensionOf,
  fitImage,
  IMAGE_NAME,
  imageForModel,
  imageHeader,
  type OwnFileRead,
  readOwnFile,
  readWorkspaceOwnFile,
} from "./files/index.ts";
export { dispatch, type ToolHostOptions, toolSpecs, type WorkspaceToolHost } from "./host/index.ts";
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
export { checkOutput, compileJsonSchema, type OutputCheck, type Validate } from "./schema/index.ts";
export { describeSearch } from "./search/index.ts";
export {
  commandTag,
  holdLifeline,
  killGroupWhenNexDies,
  launchStdio,
  ownerMark,
  STATUS_FD,
  stopLeftovers,
} from "./shell/index.ts";
export { defineTool, type Tool, type ToolContext, ToolFailure } from "./tool.ts";
export type { RunChanges, SnapshotLimits, UndoPreviewStep } from "./undo/index.ts";
export {
  describePreview,
  lastChangedSession,
  previewUndo,
  type UndoOptions,
  type UndoReport,
  undoWorkspace,
} from "./undo/index.ts";
export { latestTodos, todoNote };

/** Builds the tools of one session: read_file, write_file, edit_file, bash, grep, glob, list_dir, todo_write. */
export function createToolHost(options: ToolHostOptions): WorkspaceToolHost {
  const state = createHostState(options);
  const { ledger, parts } = state;
  const registry = createToolRegistry(
    [...allTools(parts), ...(options.extraTools ?? [])],
    options.dynamicTools,
  );
  // Dynamic tools join (and leave) the same map the permissions read; a built-in name is never replaced.
  const { tools, refresh } = registry;
  const permissions = createHostPermissions(state, tools);
  const queue = createChangeQueue();
  const { serial } = queue;

  return {
    specs: () => registry.specs(),
    async permission(call) {
      refresh();
      return checkCall(state, tools, permissions, call);
    },
    rememberApproval: (call) => permissions.remember(call),
    savableRules: (call) => permissions.savableRules(call),
    setMode: (mode) => permissions.setMode(mode),
    ledger: () => ledger.all(),
    // A call that reaches out may ask a person, so it is no read a read-only agent may make unasked.
    readOnly: (name) => {
      refresh();
      return tools.get(name)?.mutates === false && !tools.get(name)?.reach;
    },
    // ...but it may run beside other calls: the loop asks its questions one at a time, in order.
    parallel: (name) => {
      refresh();
      const tool = tools.get(name);
      return tool?.mutates === false || tool?.parallel === true;
    },
    sandbox: state.sandbox,
    forgetConversation: () =>
      serial(async () => {
        ledger.forget();
        state.childLedgers.clear();
      }),
    async execute(call, signal) {
      refresh();
      const run = () => runCall(state, tools, call, signal);
      const tool = tools.get(call.name);
      if (!tool?.mutates) return run();
      return tool.parallel ? queue.beside(run) : serial(run);
    },
    ...createJobsFacade(state),
    recordAttachment: (name, shown) => recordAttachment(state, name, shown),
    deferredTools: () => registry.deferred(),
    unfinishedWrites: () => parts.pending().map(describeStaging),
    discardUnfinished: () =>
      serial(async () => {
        const pending = parts.pending();
        for (const staged of pending) await parts.discard(staged.target);
        return pending.map(describeStaging);
      }),
    ...createUndoFacade(state, queue),
  };
}
