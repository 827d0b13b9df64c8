import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { PermissionMode, ReadRecord, ToolHost, ToolSpec } from "../protocol/index.ts";
import type { AfterRename } from "./atomic-write.ts";
import { bashTool } from "./bash.ts";
import { previewChange } from "./change-preview.ts";
import { createCheckpointRecorder } from "./checkpoints.ts";
import { mayChange } from "./coverage-hazards.ts";
import { dispatch, validateArguments } from "./dispatch.ts";
import { editFileTool } from "./edit-file.ts";
import { createFileSearch } from "./file-search.ts";
import { globTool } from "./glob.ts";
import { grepTool } from "./grep.ts";
import { createLedger } from "./ledger.ts";
import { createLeftoverSweeper } from "./leftovers.ts";
import { listDirTool } from "./list-dir.ts";
import { type CommandRules, createPermissions } from "./permissions.ts";
import { readFileTool } from "./read-file.ts";
import { createResultStore } from "./result-store.ts";
import {
  type CommandSandbox,
  createCommandSandbox,
  type SandboxSettings,
} from "./sandbox/index.ts";
import type { SnapshotLimits } from "./shadow-git.ts";
import { parseCommand } from "./shell-commands.ts";
import { todoWriteTool } from "./todo-write.ts";
import type { Tool, ToolContext, ToolLimits } from "./tool.ts";
import { describePreview, previewUndo, type UndoReport, undoWorkspace } from "./undo.ts";
import { climbsOut, createWorkspace, type Workspace } from "./workspace.ts";
import { writeFileTool } from "./write-file.ts";
import { createPartsStore, describeStaging } from "./write-parts.ts";

export { lastChangedSession } from "./checkpoints.ts";
export {
  defineJsonSchemaTool,
  type JsonSchemaToolDefinition,
  ToolSchemaError,
} from "./json-schema-tool.ts";
export { resultCapForWindow } from "./output-cap.ts";
export { type OwnFileRead, readOwnFile, readWorkspaceOwnFile } from "./own-file.ts";
export type { CommandRules } from "./permissions.ts";
export {
  type CommandSandbox,
  createCommandSandbox,
  describeSandbox,
  probeSandbox,
  type SandboxMode,
  type SandboxProbe,
  type SandboxSettings,
  type SandboxState,
} from "./sandbox/index.ts";
export type { SnapshotLimits } from "./shadow-git.ts";
export { latestTodos, todoNote } from "./todo-write.ts";
export type { Tool, ToolContext } from "./tool.ts";
export {
  describePreview,
  previewUndo,
  type UndoOptions,
  type UndoReport,
  undoWorkspace,
} from "./undo.ts";

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
  /** Tools beyond the built-in ones (JSON-Schema tools of a server, say), under the same contract. */
  extraTools?: Tool[];
  /** The steps after a file tool's rename (default: fsync, read the file); a test injects a failure here. */
  afterRename?: Partial<AfterRename>;
  /** Replaces nex's secrets in text the tools store (the command text in the checkpoint log). */
  redact?: (text: string) => string;
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
  /** A new user prompt starts: undo takes whole prompts as its steps. */
  beginPrompt(): void;
  /** The conversation starts afresh (`/clear`): the model has read no file, so the ledger empties. */
  forgetConversation(): Promise<void>;
  /** The sandbox that confines commands, and whether it works here. */
  sandbox: CommandSandbox;
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
  const sandbox = createCommandSandbox(
    options.workspace,
    options.sandbox ?? { mode: "off", network: true },
    { platform: process.platform, path: env.PATH, uid: process.getuid?.() ?? -1, home: env.HOME },
  );
  // Calls the permission check let run with no person's yes; while one runs, its command is not
  // run when no snapshot can be taken (undo could not repair it).
  const unattended = new Set<string>();
  let runningUnattended = false;
  let promptPending = false;
  const parts = createPartsStore();
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
      results,
      checkpoints: createCheckpointRecorder({
        checkpointDir: options.checkpointDir,
        workspace,
        env,
        ...(options.snapshotLimits ? { limits: options.snapshotLimits } : {}),
        ...(options.redact ? { redact: options.redact } : {}),
        requireSnapshot: () => runningUnattended,
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
  const specs = specsOf(list);
  const tools = new Map(list.map((tool) => [tool.name, tool]));
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
        forcedPushConfig: forcedPushConfig(workspace?.root ?? options.workspace),
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
  // Changes run one at a time, so checkpoints, staged parts and the ledger see them in order.
  let changes: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = changes.then(work, work);
    changes = next.catch(() => {});
    return next;
  };

  return {
    specs: () => specs,
    async permission(call) {
      const check = await permissions.check(call);
      unattended.delete(call.id);
      // A command that may change files and runs with no person's yes needs its snapshot.
      if (check.type === "allow" && tools.get(call.name)?.mutates === "exec") {
        const parsed = await parseCommand(String(call.args.command ?? "")).catch(() => null);
        if (parsed?.type !== "parsed" || parsed.commands.some(mayChange)) unattended.add(call.id);
      }
      return check;
    },
    rememberApproval: (call) => permissions.remember(call),
    setMode: (mode) => permissions.setMode(mode),
    ledger: () => ledger.all(),
    readOnly: (name) => tools.get(name)?.mutates === false,
    sandbox,
    forgetConversation: () => serial(async () => ledger.forget()),
    async execute(call, signal) {
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
        runningUnattended = unattended.delete(call.id);
        try {
          return await dispatch(call.name, call.args, {
            tools,
            context: ctx,
            signal,
            turn: call.turn,
          });
        } finally {
          runningUnattended = false;
          if (tools.get(call.name)?.mutates) {
            await ctx.checkpoints.afterChange(call.turn).catch(() => {});
          }
        }
      };
      return tools.get(call.name)?.mutates ? serial(run) : run();
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
      serial(async () =>
        undoWorkspace({
          workspace: (await ready).root,
          checkpointDir: options.checkpointDir,
          turns: steps,
          env,
          ...(options.allowedPaths ? { allowedPaths: options.allowedPaths } : {}),
          ...(options.privatePaths ? { privatePaths: options.privatePaths } : {}),
          ...(options.snapshotLimits ? { limits: options.snapshotLimits } : {}),
        }),
      ),
    undoPreview: () =>
      serial(async () =>
        describePreview(
          await previewUndo({
            workspace: (await ready).root,
            checkpointDir: options.checkpointDir,
            env,
            ...(options.allowedPaths ? { allowedPaths: options.allowedPaths } : {}),
            ...(options.privatePaths ? { privatePaths: options.privatePaths } : {}),
            ...(options.snapshotLimits ? { limits: options.snapshotLimits } : {}),
          }),
        ),
      ),
  };
}

/** Whether the workspace's git config forces every push (`push = +refs/...` under a remote). */
function forcedPushConfig(root: string): boolean {
  try {
    const text = readFileSync(join(root, ".git", "config"), "utf8");
    return /^\s*push\s*=\s*\+/im.test(text);
  } catch {
    return false;
  }
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
    todoWriteTool(),
  ];
}

function specsOf(list: Tool[]): ToolSpec[] {
  return list.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.jsonSchema,
  }));
}

/** The tool specs published to the model, without building tools for a workspace. */
export function toolSpecs(): ToolSpec[] {
  return specsOf(allTools(createPartsStore()));
}
