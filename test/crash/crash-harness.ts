// Runs a worker child, kills it with SIGKILL at a seeded random moment, and checks what it left.
// NEX_CRASH_ITERATIONS sets the kills per test (CI default below); NEX_CRASH_SEED replays a run.
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, realpathSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import type { Message } from "../../src/protocol/index.ts";
import { loadForResume, readJournal } from "../../src/session/index.ts";
import { rng } from "../session/fixtures.ts";
import { makeSandbox, type NexResult, runNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import type { Script } from "../support/stub-scripts.ts";

/** Kills per test: few enough that each crash test file stays under ~20 s on a loaded 2-core machine. */
export const ITERATIONS = Number(process.env.NEX_CRASH_ITERATIONS ?? 6);

/** The run's seed: printed in every failure so that `NEX_CRASH_SEED=<seed>` replays it. */
export const SEED = Number(process.env.NEX_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));

/** A seeded random number generator for one test, and the seed's label for messages. */
export function seeded(offset: number): { random: () => number; label: string } {
  return {
    random: rng(SEED + offset),
    label: `(NEX_CRASH_SEED=${SEED}; replay with NEX_CRASH_SEED=${SEED} npm run crash)`,
  };
}

const fixtures = join(import.meta.dirname, "fixtures");

/** A worker child and every line it printed. */
export interface Worker {
  child: ChildProcess;
  lines: string[];
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startWorker(script: string, args: string[]): Worker {
  const child = spawn(process.execPath, [join(fixtures, script), ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  let partial = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    const text = partial + chunk.toString("utf8");
    const all = text.split("\n");
    partial = all.pop() ?? "";
    lines.push(...all);
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal })),
  );
  return { child, lines, stderr: () => stderr, exited };
}

/** When to kill: some time after spawning (module loading), or after the n-th line starting with `trigger`. */
export type KillPlan =
  | { at: "spawn"; delayMs: number }
  | { at: "line"; trigger: string; count: number; delayMs: number };

/**
 * A random kill moment. One in eight lands while the child is still starting; the rest after the start
 * of an operation: a third at once, the others uniformly within `typicalMs` of it (the operation's
 * observed duration, so the kill falls in its write, fsync, rename or journal append in proportion
 * to the time each takes).
 */
export function planKill(
  random: () => number,
  trigger: string,
  maxCount: number,
  typicalMs: number,
): KillPlan {
  if (random() < 0.125) return { at: "spawn", delayMs: random() * 60 };
  const count = 1 + Math.floor(random() * maxCount);
  const delayMs = random() < 0.33 ? 0 : random() * typicalMs * 1.2;
  return { at: "line", trigger, count, delayMs };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// setTimeout is only good to a millisecond; the last stretch is spun so short delays stay distinct.
async function pause(ms: number): Promise<void> {
  const end = performance.now() + ms;
  if (ms > 2) await sleep(ms - 2);
  while (performance.now() < end) {}
}

/** What happened to a worker under a kill plan. */
export interface KillOutcome {
  killed: boolean;
  code: number | null;
  lines: string[];
  stderr: string;
}

/** Runs a worker until the plan's moment, kills it with SIGKILL, and waits for it to be gone. */
export async function killAt(worker: Worker, plan: KillPlan): Promise<KillOutcome> {
  let gone = false;
  void worker.exited.then(() => {
    gone = true;
  });
  if (plan.at === "line") {
    const seen = () => worker.lines.filter((line) => line.startsWith(plan.trigger)).length;
    while (!gone && seen() < plan.count) await new Promise((resolve) => setImmediate(resolve));
  }
  if (!gone) await pause(plan.delayMs);
  const killed = !gone && worker.child.kill("SIGKILL");
  const { code } = await worker.exited;
  return { killed, code, lines: worker.lines, stderr: worker.stderr() };
}

/** A workspace (symlink-free path) and data directory for one crash test, removed by `dispose`. */
export interface CrashBox {
  workspace: string;
  dataDir: string;
  env: Record<string, string>;
  dispose(): void;
}

export function crashBox(): CrashBox {
  const box = makeSandbox();
  const workspace = realpathSync(box.workspace);
  return {
    workspace,
    dataDir: box.dataDir,
    env: box.env,
    dispose: () => rmSync(dirname(workspace), { recursive: true, force: true }),
  };
}

/** Every path under `dir`, relative to it, files only. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path).map((p) => join(entry.name, p)));
    else out.push(relative(dir, path));
  }
  return out.sort();
}

/** nex's own temporary names beside a target: `.name.nex-<hex>.tmp` (a write) or `.parts` (staged parts). */
export const TEMP_FILE = /(^|\/)\.[^/]+\.nex-[0-9a-f]{12}\.(tmp|parts)$/;

/** The session journals under a crash box's data directory, oldest first. */
export function journalsOf(box: CrashBox): string[] {
  const dir = join(box.dataDir, "nex", "sessions");
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .map((name) => join(dir, name))
    .sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs);
}

const ALLOWED_WARNINGS = [
  /last line is incomplete/,
  /Journal line \d+, the last, is incomplete/,
  /tool call\(s\) at the end of the journal had no result/,
  // The resume budget is small and some messages are large: a fact about the window, not the file.
  /The newest exchange alone does not fit the context window/,
];

/**
 * Loads a journal both ways (whole, and the resume tail) and returns every problem found: a warning
 * other than a torn last line or an interrupted call, a gap in `seq`, or a message `check` rejects.
 * `torn` holds the line numbers of fragments earlier crashes left (a SIGKILL can cut a large write
 * short); reopening closes such a line, so it stays, skipped, in the middle. A new torn last line is
 * added to `torn`.
 */
export async function journalProblems(
  path: string,
  check: (message: Message, seq: number) => string | null,
  torn: Set<number> = new Set(),
): Promise<{ problems: string[]; messages: number }> {
  const problems: string[] = [];
  const whole = await readJournal(path);
  for (const warning of whole.warnings) {
    const line = Number(/Journal line (\d+)/.exec(warning)?.[1]);
    if (/, the last, is incomplete/.test(warning)) torn.add(line);
    else if (!(torn.has(line) && /is corrupt/.test(warning)))
      problems.push(`readJournal: ${warning}`);
  }
  let expected = 1;
  for (const record of whole.records) {
    if (record.type !== "message") continue;
    if (record.seq !== expected) problems.push(`seq ${record.seq} where ${expected} was expected`);
    expected = record.seq + 1;
    const bad = check(record.message, record.seq);
    if (bad) problems.push(`message ${record.seq}: ${bad}`);
  }
  const resumed = await loadForResume(path, { budgetTokens: 20_000 });
  const fragments = resumed.warnings.filter((w) =>
    /from the end is corrupt|last journal line is corrupt/i.test(w),
  );
  if (fragments.length > torn.size) problems.push(...fragments.map((w) => `loadForResume: ${w}`));
  const strange = resumed.warnings.filter(
    (w) => !fragments.includes(w) && !ALLOWED_WARNINGS.some((re) => re.test(w)),
  );
  problems.push(...strange.map((w) => `loadForResume: ${w}`));
  if (resumed.totalMessages !== null && resumed.totalMessages !== expected - 1)
    problems.push(`loadForResume counts ${resumed.totalMessages} messages, not ${expected - 1}`);
  return { problems, messages: expected - 1 };
}

/** Runs `nex resume --last` in the box against the stub endpoint playing `scripts`. */
export async function resumeWithNex(
  box: CrashBox,
  scripts: Script[],
  task: string,
): Promise<{ result: NexResult; bodies: unknown[] }> {
  const stub = await startStubEndpoint({ scripts });
  try {
    const result = await runNex(
      ["resume", "--last", "--yes", "--base-url", `${stub.url}/v1`, task],
      { cwd: box.workspace, env: box.env },
    );
    return { result, bodies: stub.requestsTo("/v1/chat/completions").map((r) => r.body) };
  } finally {
    await stub.close();
  }
}
