import { relative } from "node:path";
import {
  climbsOut,
  createLedger,
  createLeftoverSweeper,
  createPartsStore,
  createWorkspace,
  type Workspace,
} from "../files/index.ts";
import { createResultStore, type ResultStore } from "../results/index.ts";
import type { CommandSandbox } from "../sandbox/index.ts";
import type { FileSearch } from "../search/index.ts";
import type { JobInfo, JobTable } from "../shell/index.ts";
import type { ToolContext, ToolLimits } from "../tool.ts";
import { createCheckpointRecorder } from "../undo/index.ts";
import type { ToolHostOptions } from "./host-options.ts";
import { jobsOnFirstStart } from "./jobs-on-first-start.ts";

/** What every call of a session shares; built on the first call, when the workspace is known. */
export type SharedContext = Omit<ToolContext, "signal" | "turn">;

type Ledger = ReturnType<typeof createLedger>;

/** The values a tool host's parts share, some of which change as calls come and go. */
export interface HostState {
  options: ToolHostOptions;
  env: Record<string, string | undefined>;
  limits: ToolLimits;
  results: ResultStore;
  /** The workspace, once its root is resolved (rejected when it cannot be used). */
  ready: Promise<Workspace>;
  ledger: Ledger;
  /**
   * A child agent's reads are its own: the parent may not write a file only a child read, nor the
   * reverse (each must read what it changes). Kept for the session, forgotten with the conversation.
   */
  childLedgers: Map<string, Ledger>;
  sandbox: CommandSandbox;
  /**
   * Calls the permission check let run with no person's yes; while one runs, its command is not
   * run when no snapshot can be taken (undo could not repair it).
   */
  unattended: Set<string>;
  /** Calls a person approved after seeing their caution (a private address): the tool may go there. */
  cautioned: Set<string>;
  /** Calls in flight that run with no person's yes (several, when calls run side by side). */
  runningUnattended: Set<string>;
  parts: ReturnType<typeof createPartsStore>;
  /** The background jobs (the process runner loads with the first one). */
  jobs: JobTable;
  /** A job as one line (`job 2 (running): npm run dev`). */
  jobLine: (job: JobInfo) => string;
  /** Built by the first call that needs it. */
  shared: SharedContext | null;
  /** A prompt began before the context was built: its checkpoint step begins when it is. */
  promptPending: boolean;
}

/** The host's shared values from its options and its sandbox; nothing is touched on disk yet. */
export function createHostState(options: ToolHostOptions, sandbox: CommandSandbox): HostState {
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
  const { jobs, line } = jobsOnFirstStart({
    max: options.maxJobs ?? 4,
    killGraceMs: limits.killGraceMs,
  });
  return {
    options,
    env,
    limits,
    results,
    ready,
    ledger: createLedger(options.ledger ?? []),
    childLedgers: new Map(),
    sandbox,
    unattended: new Set(),
    cautioned: new Set(),
    runningUnattended: new Set(),
    parts: createPartsStore(),
    jobs,
    jobLine: line,
    shared: null,
    promptPending: false,
  };
}

/** The read ledger of the main agent (undefined) or of one child agent. */
export function ledgerOf(state: HostState, agent: string | undefined): Ledger {
  if (agent === undefined) return state.ledger;
  let own = state.childLedgers.get(agent);
  if (!own) {
    own = createLedger([]);
    state.childLedgers.set(agent, own);
  }
  return own;
}

/** The context every call shares, built on first use (rejects when the workspace cannot be used). */
export async function sharedContext(state: HostState): Promise<SharedContext> {
  const { options, env, limits } = state;
  const workspace = await state.ready;
  state.shared ??= {
    workspace,
    ledger: state.ledger,
    limits,
    search: searchOnFirstUse(
      workspace.root,
      env,
      limits.useRipgrep,
      (options.privatePaths ?? [])
        .flatMap((dir) => [relative(workspace.root, dir), relative(options.workspace, dir)])
        .filter((rel) => rel !== "" && !climbsOut(rel)),
    ),
    leftovers: createLeftoverSweeper(),
    sandbox: state.sandbox,
    jobs: state.jobs,
    results: state.results,
    ...(options.editor ? { editor: options.editor } : {}),
    ...(options.redact ? { redact: options.redact } : {}),
    checkpoints: createCheckpointRecorder({
      checkpointDir: options.checkpointDir,
      workspace,
      env,
      ...(options.snapshotLimits ? { limits: options.snapshotLimits } : {}),
      ...(options.redact ? { redact: options.redact } : {}),
      requireSnapshot: () => state.runningUnattended.size > 0,
    }),
  };
  if (state.promptPending) state.shared.checkpoints.beginPrompt();
  state.promptPending = false;
  return state.shared;
}

type Search = typeof import("../search/index.ts");

/**
 * The workspace's file search, whose folder loads at the first listing, glob or grep: a session of
 * file reads and writes never loads it.
 */
function searchOnFirstUse(...args: Parameters<Search["createFileSearch"]>): FileSearch {
  let search: Promise<FileSearch> | null = null;
  const loaded = () =>
    (search ??= import("../search/index.ts").then((module) => module.createFileSearch(...args)));
  return {
    backend: async () => (await loaded()).backend(),
    describe: async () => (await loaded()).describe(),
    listFiles: async (dir, signal) => (await loaded()).listFiles(dir, signal),
    grep: async (query) => (await loaded()).grep(query),
  };
}
