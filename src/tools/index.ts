import { relative } from "node:path";
import type {
  PermissionMode,
  ReadRecord,
  ToolHost,
  ToolInvocation,
  ToolSpec,
} from "../protocol/index.ts";
import { bashTool } from "./bash.ts";
import { dispatch, validateArguments } from "./dispatch.ts";
import { editFileTool } from "./edit-file.ts";
import type { AfterRename } from "./files/index.ts";
import {
  climbsOut,
  createLedger,
  createLeftoverSweeper,
  createPartsStore,
  createWorkspace,
  describeStaging,
  readState,
  statRegular,
  type Workspace,
} from "./files/index.ts";
import { globTool } from "./glob.ts";
import { grepTool } from "./grep.ts";
import { jobsTool } from "./jobs.ts";
import { listDirTool } from "./list-dir.ts";
import {
  type CommandRules,
  createPermissions,
  mayChange,
  workspaceHooksDir,
} from "./permissions/index.ts";
import { MAX_READ_FILE_BYTES, readFileTool } from "./read-file.ts";
import { createResultStore } from "./results/index.ts";
import {
  type CommandSandbox,
  createCommandSandbox,
  gitSettings,
  type SandboxSettings,
} from "./sandbox/index.ts";
import { createFileSearch } from "./search/index.ts";
import { createJobTable, jobLine, parseCommand } from "./shell/index.ts";
import { todoWriteTool } from "./todo-write.ts";
import type { Tool, ToolContext, ToolLimits } from "./tool.ts";
import type { SnapshotLimits } from "./undo/index.ts";
import {
  changeMark,
  changesSince,
  createCheckpointRecorder,
  describePreview,
  previewUndo,
  type RunChanges,
  sessionDiff,
  type UndoPreviewStep,
  type UndoReport,
  undoWorkspace,
} from "./undo/index.ts";
import { writeFileTool } from "./write-file.ts";

export { dispatch } from "./dispatch.ts";
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
export { latestTodos, todoNote } from "./todo-write.ts";
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

/** How to build the tools for one workspace and session. */
export interface ToolHostOptions {
  /** Absolute workspace root. */
  workspace: string;
  mode: PermissionMode;
  rules?: CommandRules;
  /** Paths outside the workspace the user allowed. */
  allowedPaths?: string[];
  /** nex's own data directories (journals, checkpoints); tools keep out when they lie in the workspace. */
  privatePaths?: string[];
  /** The read ledger restored from the journal on resume. */
  ledger?: ReadRecord[];
  /** Private directory for snapshots and before-images, outside the workspace (e.g. `<dataDir>/checkpoints/<session>`). */
  checkpointDir: string;
  /** Default `bash` timeout (120 s). */
  bashTimeoutMs?: number;
  /** Most a call may ask for with `timeout_seconds` (600 s). */
  maxBashTimeoutMs?: number;
  /** Wait between SIGTERM and SIGKILL (2 s). */
  killGraceMs?: number;
  /** Most bytes of a result (32 KiB); `resultCap` wins when given. */
  outputCap?: number;
  /** Most bytes of a result now (it follows the model's window, which /model can change). */
  resultCap?: () => number;
  /** Where results larger than that are stored whole (default: beside the checkpoints). */
  resultsDir?: string;
  /** False forces the JavaScript search fallback even when `rg` is on PATH. */
  useRipgrep?: boolean;
  /** Environment for commands, git and ripgrep (default: this process's). */
  env?: Record<string, string | undefined>;
  snapshotLimits?: Partial<SnapshotLimits>;
  /** How commands are confined (default: off, for hosts built without a configuration, as in tests). */
  sandbox?: SandboxSettings;
  /** No person can answer a question (headless): what would ask is refused, with the reason. */
  unattended?: boolean;
  /** Most background jobs running at once (4). */
  maxJobs?: number;
  /** Background jobs keep running after the prompt that started them (the chat); else they end with it. */
  jobsOutlivePrompts?: boolean;
  /** Tools beyond the built-in ones (JSON-Schema tools of a server, say), under the same contract. */
  extraTools?: Tool[];
  /** The editor's unsaved buffers (ACP): reads show them, changes to such a file are refused. */
  editor?: ToolContext["editor"];
  /** Tools that come and go during the session (a server's list changed); same array until they change. */
  dynamicTools?: () => readonly Tool[];
  /** The steps after a file tool's rename (default: fsync, read the file); a test injects a failure here. */
  afterRename?: Partial<AfterRename>;
  /** Replaces nex's secrets in text the tools store (the command text in the checkpoint log). */
  redact?: (text: string) => string;
  /** Whether the session's model takes images now (`read_file` returns an image, or describes it). */
  acceptsImages?: () => boolean;
  /** A step of a long call, for the UI (research's progress). */
  onProgress?: (callId: string, name: string, message: string) => void;
  /** A running command's output so far, for the UI (throttled by the tool). */
  onOutput?: (callId: string, name: string, tail: string, lines: number, bytes: number) => void;
}

/** The tools as the loop sees them, plus what the runtime needs around them. */
export interface WorkspaceToolHost extends ToolHost {
  /** Every read record of the session, for the journal. */
  ledger(): ReadRecord[];
  setMode(mode: PermissionMode): void;
  /** Restores the workspace to before the last `steps` user prompts that changed something. */
  undo(steps: number): Promise<UndoReport>;
  /** What each step of undo would restore, newest first, as text. */
  undoPreview(): Promise<string>;
  /** The precise allow rules a "this project" approval would save, or why none (see permissions.ts). */
  savableRules(call: ToolInvocation): Promise<{ rules: string[] } | { refused: string }>;
  /** Undo's steps, newest first, changing nothing (`/rewind` places them by time). */
  undoSteps(): Promise<UndoPreviewStep[]>;
  /** Where a run's changes begin: pass it to `changesSince` when the run ends. */
  changeMark(): Promise<number>;
  /** The paths whose bytes or mode differ from before `mark`, from the checkpoints (not a count of calls). */
  changesSince(mark: number): Promise<RunChanges>;
  /** `/diff`: what the session changed, per file, against undo's snapshots, as text. */
  sessionDiff(): Promise<string>;
  /** A new user prompt starts: undo takes whole prompts as its steps. */
  beginPrompt(): void;
  /** The conversation starts afresh (`/clear`): the model has read no file, so the ledger empties. */
  forgetConversation(): Promise<void>;
  /** The sandbox that confines commands, and whether it works here. */
  sandbox: CommandSandbox;
  /** Stops every background job; says which it stopped. */
  stopJobs(): Promise<string[]>;
  /**
   * Records that the model was shown the first bytes of a file (`@path`): its complete lines count as
   * read, as a read_file page does. False when the file is not what was shown (it changed since).
   */
  recordAttachment(name: string, shown: Buffer): Promise<boolean>;
  /** What the jobs tool says, for a person (`/bg`): the list, a job's last lines, or a stop. */
  jobsForUser(action: "list" | "output" | "stop", id?: number): Promise<string>;
  /** The tools marked rarely used, loaded on demand on small windows. */
  deferredTools(): string[];
}

/** Builds the tools of one session: read_file, write_file, edit_file, bash, grep, glob, list_dir, todo_write. */
export function createToolHost(options: ToolHostOptions): WorkspaceToolHost {
  const env = options.env ?? process.env;
  const fixedCap = options.outputCap ?? 32 * 1024;
  const limits: ToolLimits = {
    get outputCap() {
      return options.resultCap?.() ?? fixedCap;
    },
    bashTimeoutMs: options.bashTimeoutMs ?? 120_000,
    maxBashTimeoutMs: options.maxBashTimeoutMs ?? 600_000,
    killGraceMs: options.killGraceMs ?? 2_000,
    useRipgrep: options.useRipgrep ?? true,
    env,
    acceptsImages: options.acceptsImages ?? (() => false),
    ...(options.afterRename ? { afterRename: options.afterRename } : {}),
  };
  const results = createResultStore(
    options.resultsDir ?? `${options.checkpointDir}-results`,
    options.redact,
  );
  const ready: Promise<Workspace> = createWorkspace(
    options.workspace,
    options.allowedPaths ?? [],
    options.privatePaths ?? [],
    (input) => results.locate(input),
  );
  // Keep an unhandled rejection from escaping before the first call reports it.
  ready.catch(() => {});
  const ledger = createLedger(options.ledger ?? []);
  // A child agent's reads are its own: the parent may not write a file only a child read, nor the
  // reverse (each must read what it changes). Kept for the session, forgotten with the conversation.
  const childLedgers = new Map<string, ReturnType<typeof createLedger>>();
  const ledgerOf = (agent: string | undefined) => {
    if (agent === undefined) return ledger;
    let own = childLedgers.get(agent);
    if (!own) {
      own = createLedger([]);
      childLedgers.set(agent, own);
    }
    return own;
  };
  const sandbox = createCommandSandbox(
    options.workspace,
    options.sandbox ?? { mode: "off", network: true },
    { platform: process.platform, path: env.PATH, uid: process.getuid?.() ?? -1, home: env.HOME },
  );
  // Calls the permission check let run with no person's yes; while one runs, its command is not
  // run when no snapshot can be taken (undo could not repair it).
  const unattended = new Set<string>();
  // Calls a person approved after seeing their caution (a private address): the tool may go there.
  const cautioned = new Set<string>();
  // Calls in flight that run with no person's yes (several, when calls run side by side).
  const runningUnattended = new Set<string>();
  let promptPending = false;
  const parts = createPartsStore();
  const jobs = createJobTable({ max: options.maxJobs ?? 4, killGraceMs: limits.killGraceMs });
  let shared: Omit<ToolContext, "signal" | "turn"> | null = null;
  const context = async (): Promise<Omit<ToolContext, "signal" | "turn">> => {
    const workspace = await ready;
    shared ??= {
      workspace,
      ledger,
      limits,
      search: createFileSearch(
        workspace.root,
        env,
        limits.useRipgrep,
        (options.privatePaths ?? [])
          .flatMap((dir) => [relative(workspace.root, dir), relative(options.workspace, dir)])
          .filter((rel) => rel !== "" && !climbsOut(rel)),
      ),
      leftovers: createLeftoverSweeper(),
      sandbox,
      jobs,
      results,
      ...(options.editor ? { editor: options.editor } : {}),
      ...(options.redact ? { redact: options.redact } : {}),
      checkpoints: createCheckpointRecorder({
        checkpointDir: options.checkpointDir,
        workspace,
        env,
        ...(options.snapshotLimits ? { limits: options.snapshotLimits } : {}),
        ...(options.redact ? { redact: options.redact } : {}),
        requireSnapshot: () => runningUnattended.size > 0,
      }),
    };
    if (promptPending) shared.checkpoints.beginPrompt();
    promptPending = false;
    return shared;
  };
  const list = [...allTools(parts), ...(options.extraTools ?? [])];
  const names = new Set<string>();
  for (const tool of list) {
    if (names.has(tool.name))
      throw new Error(
        `Two tools are named ${tool.name}; rename one of them (an added tool cannot replace a built-in one).`,
      );
    names.add(tool.name);
  }
  let specs = specsOf(list);
  const deferredOf = (all: Tool[]) => all.filter((tool) => tool.deferred).map((tool) => tool.name);
  // The same array until the tools change, so a caller can tell a change by identity.
  let deferred = deferredOf(list);
  const tools = new Map(list.map((tool) => [tool.name, tool]));
  // Dynamic tools join (and leave) the same map the permissions read; a built-in name is never replaced.
  let dynamicSource: readonly Tool[] = [];
  let dynamicSeen: readonly Tool[] = [];
  const refresh = () => {
    const current = options.dynamicTools?.() ?? dynamicSource;
    if (current === dynamicSource) return;
    dynamicSource = current;
    for (const tool of dynamicSeen) tools.delete(tool.name);
    dynamicSeen = current.filter((tool) => !names.has(tool.name));
    for (const tool of dynamicSeen) tools.set(tool.name, tool);
    specs = specsOf([...list, ...dynamicSeen]);
    deferred = deferredOf([...list, ...dynamicSeen]);
  };
  const permissions = createPermissions({
    mode: options.mode,
    ...(options.rules ? { rules: options.rules } : {}),
    tools,
    sandboxUnavailable: () => sandbox.unavailable(),
    unattended: options.unattended ?? false,
    validArgs: (tool, args) => validateArguments(tool, args).length === 0,
    async locate(path) {
      const workspace = await ready;
      const resolved = await workspace.resolve(path).catch(() => null);
      if (!resolved) return null;
      return { where: resolved.outside ? "allowed" : "inside", display: resolved.display };
    },
    async hazards() {
      const workspace = await ready.catch(() => null);
      return {
        roots: [...new Set([options.workspace, workspace?.root ?? options.workspace])],
        allowedPaths: options.allowedPaths ?? [],
        privatePaths: options.privatePaths ?? [],
        home: env.HOME,
        forcedPushConfig: () =>
          gitSettings(workspace?.root ?? options.workspace, env, "^remote\\..*\\.push$").some(
            (refspec) => refspec.startsWith("+"),
          ),
        hooksDir: () => workspaceHooksDir(options.workspace, env),
        coverage: async () => {
          const ctx = await context().catch(() => null);
          return ctx
            ? ctx.checkpoints.coverage()
            : { type: "unavailable", reason: "the workspace cannot be used" };
        },
      };
    },
    async preview(tool, args) {
      const ctx = await context();
      // Loaded when a person is first asked: unattended runs never are.
      const { previewChange } = await import("./change-preview.ts");
      return previewChange(tool.name, args, {
        ...ctx,
        signal: AbortSignal.timeout(5_000),
        turn: 0,
      });
    },
    async summarize(tool, args) {
      const ctx = await context();
      return tool
        .summarize(args, { ...ctx, signal: AbortSignal.timeout(5_000), turn: 0 })
        .catch(() => tool.name);
    },
  });
  const recordShown = async (name: string, shown: Buffer): Promise<boolean> => {
    const ctx = await context();
    const target = await ctx.workspace.resolve(name).catch(() => null);
    if (!target?.exists) return false;
    const info = statRegular(target.abs, target.display);
    if (!info || info.size > MAX_READ_FILE_BYTES) return false;
    const onDisk = await readState(target.abs, target.display);
    if (!onDisk?.bytes.subarray(0, shown.length).equals(shown)) return false;
    const lines = onDisk.bytes.toString("utf8").replace(/\n$/, "").split("\n");
    const total = onDisk.size === 0 ? 0 : lines.length;
    // A cut attachment shows its complete lines only: the last, partial one is not known.
    const covered =
      shown.length >= onDisk.size ? total : shown.toString("utf8").split("\n").length - 1;
    ctx.ledger.recordRead(
      { path: target.abs, hash: onDisk.hash, mtimeMs: onDisk.mtimeMs, size: onDisk.size },
      covered >= 1 ? { from: 1, to: covered, total } : { from: 1, to: 0, total },
    );
    return true;
  };

  // Changes run one at a time, so checkpoints, staged parts and the ledger see them in order.
  let changes: Promise<unknown> = Promise.resolve();
  // Calls of a changing tool that may run beside one another (see `Tool.parallel`), in flight.
  const besides = new Set<Promise<unknown>>();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const after = changes.then(() => Promise.allSettled([...besides]));
    const next = after.then(work, work);
    changes = next.catch(() => {});
    return next;
  };
  // After the changes queued so far, beside the others of its kind; the next change waits for it.
  const beside = <T>(work: () => Promise<T>): Promise<T> => {
    const next = changes.then(work, work);
    const settled = next.catch(() => {});
    besides.add(settled);
    void settled.then(() => besides.delete(settled));
    return next;
  };
  // Where the checkpoint store is and what it covers, for reading it back.
  const store = async () => ({
    workspace: (await ready).root,
    checkpointDir: options.checkpointDir,
    env,
    ...(options.allowedPaths ? { allowedPaths: options.allowedPaths } : {}),
    ...(options.privatePaths ? { privatePaths: options.privatePaths } : {}),
    ...(options.snapshotLimits ? { limits: options.snapshotLimits } : {}),
  });
  const undoSteps = () => serial(async () => previewUndo(await store()));

  return {
    specs: () => {
      refresh();
      return specs;
    },
    async permission(call) {
      refresh();
      const check = await permissions.check(call);
      unattended.delete(call.id);
      cautioned.delete(call.id);
      if (check.type === "ask" && check.warning && tools.get(call.name)?.caution)
        cautioned.add(call.id);
      // A command that may change files and runs with no person's yes needs its snapshot.
      if (check.type === "allow" && tools.get(call.name)?.mutates === "exec") {
        const parsed = await parseCommand(String(call.args.command ?? "")).catch(() => null);
        if (parsed?.type !== "parsed" || parsed.commands.some(mayChange)) unattended.add(call.id);
      }
      return check;
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
    sandbox,
    forgetConversation: () =>
      serial(async () => {
        ledger.forget();
        childLedgers.clear();
      }),
    async execute(call, signal) {
      refresh();
      const run = async () => {
        let ctx: Omit<ToolContext, "signal" | "turn">;
        try {
          ctx = await context();
        } catch (error) {
          return {
            isError: true,
            code: "failed" as const,
            content: `The workspace ${options.workspace} cannot be used (${(error as Error).message}). Tell the user.`,
          };
        }
        if (unattended.delete(call.id)) runningUnattended.add(call.id);
        try {
          const approved = cautioned.delete(call.id);
          const report = options.onProgress;
          const live = options.onOutput;
          return await dispatch(call.name, call.args, {
            tools,
            context: {
              ...ctx,
              ledger: ledgerOf(call.agent),
              ...(approved ? { approved } : {}),
              ...(report
                ? { progress: (message: string) => report(call.id, call.name, message) }
                : {}),
              ...(live
                ? {
                    output: (tail: string, lines: number, bytes: number) =>
                      live(call.id, call.name, tail, lines, bytes),
                  }
                : {}),
            },
            signal,
            turn: call.turn,
            callId: call.id,
          });
        } finally {
          runningUnattended.delete(call.id);
          if (tools.get(call.name)?.mutates) {
            await ctx.checkpoints.afterChange(call.turn).catch(() => {});
          }
        }
      };
      const tool = tools.get(call.name);
      if (!tool?.mutates) return run();
      return tool.parallel ? beside(run) : serial(run);
    },
    notices: () =>
      jobs
        .ended()
        .map(
          ({ job, tail }) =>
            `[nex] Background ${jobLine(job)} has ended.${tail ? ` Its last lines:\n${tail}` : ""}`,
        ),
    async endOfPrompt() {
      if (options.jobsOutlivePrompts) return [];
      const stopped = await jobs.stopAll();
      return stopped.map(
        (job) =>
          `Stopped background ${jobLine(job)}: it was still running when the task ended, and jobs end with the task in this mode.`,
      );
    },
    stopJobs: async () => (await jobs.stopAll()).map(jobLine),
    async recordAttachment(name, shown) {
      try {
        return await recordShown(name, shown);
      } catch {
        // Not a file the tools may read (a device, gone meanwhile): not recorded, so read before a change.
        return false;
      }
    },
    async jobsForUser(action, id) {
      const ctx = await context();
      const args = { action, ...(id !== undefined ? { id } : {}), lines: 20 };
      const outcome = await jobsTool().execute(args, {
        ...ctx,
        signal: AbortSignal.timeout(30_000),
        turn: 0,
      });
      return outcome.content;
    },
    deferredTools: () => {
      refresh();
      return deferred;
    },
    unfinishedWrites: () => parts.pending().map(describeStaging),
    discardUnfinished: () =>
      serial(async () => {
        const pending = parts.pending();
        for (const state of pending) await parts.discard(state.target);
        return pending.map(describeStaging);
      }),
    beginPrompt() {
      if (shared) shared.checkpoints.beginPrompt();
      else promptPending = true;
    },
    undo: (steps) =>
      serial(async () => {
        // A job still running would go on changing what undo restores.
        const stopped = await jobs.stopAll();
        const report = await undoWorkspace({
          workspace: (await ready).root,
          checkpointDir: options.checkpointDir,
          turns: steps,
          env,
          ...(options.allowedPaths ? { allowedPaths: options.allowedPaths } : {}),
          ...(options.privatePaths ? { privatePaths: options.privatePaths } : {}),
          ...(options.snapshotLimits ? { limits: options.snapshotLimits } : {}),
        });
        return stopped.length === 0
          ? report
          : {
              ...report,
              text: `Stopped ${stopped.map((job) => `background job ${job.id}`).join(", ")} first (it would go on changing files).\n${report.text}`,
            };
      }),
    undoPreview: async () => describePreview(await undoSteps()),
    undoSteps: () => undoSteps(),
    // Behind the changes in flight, so the last checkpoint of the run is in the log.
    changeMark: () => serial(async () => changeMark(options.checkpointDir)),
    changesSince: (mark) => serial(async () => changesSince(await store(), mark)),
    sessionDiff: () => serial(async () => sessionDiff(await store(), 0)),
  };
}

function allTools(parts: ReturnType<typeof createPartsStore>): Tool[] {
  return [
    readFileTool(),
    writeFileTool(parts),
    editFileTool(),
    bashTool(),
    grepTool(),
    globTool(),
    listDirTool(),
    jobsTool(),
    todoWriteTool(),
  ];
}

function specsOf(list: Tool[]): ToolSpec[] {
  return list.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.jsonSchema,
    ...(tool.brief ? { brief: tool.brief } : {}),
  }));
}

/** The tool specs published to the model, without building tools for a workspace. */
export function toolSpecs(): ToolSpec[] {
  return specsOf(allTools(createPartsStore()));
}
