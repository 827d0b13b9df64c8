// The tool host's working parts put together: the permission rules, the workspace, checkpoints, jobs
// and the call runner. Loaded (`loadToolEngine`) by ../index.ts at a session's first call or first
// question about its tools' state: a run that calls no tool never loads them.

import { describeStaging } from "../files/index.ts";
import type { CommandSandbox } from "../sandbox/index.ts";
import { createChangeQueue } from "./change-queue.ts";
import { filesNamed } from "./files-named.ts";
import { createJobsFacade } from "./host-jobs.ts";
import type { ToolHostOptions, WorkspaceToolHost } from "./host-options.ts";
import { checkCall, createHostPermissions } from "./host-permissions.ts";
import { createHostState, type HostState } from "./host-state.ts";
import { createUndoFacade } from "./host-undo.ts";
import { recordAttachment } from "./record-attachment.ts";
import { runCall } from "./run-call.ts";
import type { ToolRegistry } from "./tool-registry.ts";

/** The working host over `registry`'s tools, confining commands in `sandbox`; `parts` gets its staged parts. */
export function createToolEngine(
  options: ToolHostOptions,
  registry: ToolRegistry,
  sandbox: CommandSandbox,
): { host: WorkspaceToolHost; parts: HostState["parts"] } {
  const state = createHostState(options, sandbox);
  const { ledger, parts } = state;
  // Dynamic tools join (and leave) the same map the permissions read; a built-in name is never replaced.
  const { tools, refresh } = registry;
  const permissions = createHostPermissions(state, tools);
  const queue = createChangeQueue();
  const { serial } = queue;

  const host: WorkspaceToolHost = {
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
    filesNamed: (name, limit, signal) => filesNamed(state, name, limit, signal),
    unfinishedWrites: () => parts.pending().map(describeStaging),
    discardUnfinished: () =>
      serial(async () => {
        const pending = parts.pending();
        for (const staged of pending) await parts.discard(staged.target);
        return pending.map(describeStaging);
      }),
    ...createUndoFacade(state, queue),
  };
  return { host, parts };
}
