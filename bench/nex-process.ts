// Runs the real `nex` (bin/nex.js) as a child process and measures it: wall time, and through the
// preloaded usage probe its CPU, peak RSS and retained heap. The bench's own process serves the stub
// endpoint, so the endpoint's work is never counted as nex's.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

export const root = resolve(import.meta.dirname, "..");
export const nexBin = join(root, "bin", "nex.js");
const probe = "usage-probe.js";

/** What one process of a nex run reported at exit (bin/nex.js may re-exec: then there are two). */
export interface ProcessUsage {
  pid: number;
  ppid: number;
  node: string;
  cpuMs: number;
  userMs: number;
  systemMs: number;
  maxRssKb: number;
  heapAfterGcKb: number;
}

/** One measured nex run. */
export interface NexRun {
  code: number | null;
  stderr: string;
  wallMs: number;
  /** CPU of every nex process (a re-exec counts both), and its user and system parts. */
  cpuMs: number;
  userMs: number;
  systemMs: number;
  /** The largest peak RSS among them. */
  maxRssKb: number;
  heapAfterGcKb: number;
  processes: ProcessUsage[];
}

/** Runs `node bin/nex.js ...args` without blocking this process's event loop. */
export async function runNex(
  args: string[],
  options: {
    cwd: string;
    /** Called once the child is spawned: when (performance.now()) and its pid. */
    onSpawn?: (startedAt: number, pid: number | undefined) => void;
    /** Preload the usage probe (default true); off where its few milliseconds of loading would count. */
    probe?: boolean;
    /** More plain-JavaScript modules to preload (`--import`), e.g. without-fsync.js. */
    preload?: string[];
    /** Another nex's bin/nex.js (`--compare`); this tree's by default. */
    bin?: string;
    /** More environment variables for nex. */
    env?: Record<string, string>;
  },
): Promise<NexRun> {
  const useProbe = options.probe ?? true;
  const usageDir = mkdtempSync(join(tmpdir(), "nex-bench-usage-"));
  const inherited = process.env.NODE_OPTIONS ?? "";
  const start = performance.now();
  const child = spawn(process.execPath, [options.bin ?? nexBin, ...args], {
    cwd: options.cwd,
    env: {
      ...process.env,
      ...options.env,
      // A key of a real key's length: nex's secret scrub is on the measured path.
      OPENAI_API_KEY: "sk-proj-bench0bench1bench2bench3bench4bench5bench6bench7",
      NEX_BENCH_USAGE_DIR: usageDir,
      NODE_OPTIONS: [
        inherited.trim(),
        ...[...(useProbe ? [probe] : []), ...(options.preload ?? [])]
          .map(preloadUrl)
          .map((url) => `--import ${url}`),
      ]
        .filter((part) => part !== "")
        .join(" "),
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  options.onSpawn?.(start, child.pid);
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((done) => child.on("close", done));
  const wallMs = performance.now() - start;
  const processes = readdirSync(usageDir).map(
    (name) => JSON.parse(readFileSync(join(usageDir, name), "utf8")) as ProcessUsage,
  );
  rmSync(usageDir, { recursive: true, force: true });
  if (useProbe && processes.length === 0) {
    throw new Error(`nex wrote no usage (exit ${code}): ${stderr}`);
  }
  const sum = (pick: (p: ProcessUsage) => number) =>
    useProbe ? processes.reduce((total, p) => total + pick(p), 0) : Number.NaN;
  const biggest = processes.reduce<ProcessUsage | null>(
    (a, b) => (a === null || b.maxRssKb > a.maxRssKb ? b : a),
    null,
  );
  return {
    code,
    stderr,
    wallMs,
    cpuMs: sum((p) => p.cpuMs),
    userMs: sum((p) => p.userMs),
    systemMs: sum((p) => p.systemMs),
    maxRssKb: biggest?.maxRssKb ?? Number.NaN,
    heapAfterGcKb: biggest?.heapAfterGcKb ?? Number.NaN,
    processes,
  };
}

/** The file URL of a module in bench/. */
export function preloadUrl(name: string): string {
  return pathToFileURL(join(import.meta.dirname, name)).href;
}

/** A throw-away workspace and data directory. */
export function scratch(): { workspace: string; dataDir: string; remove: () => void } {
  const workspace = mkdtempSync(join(tmpdir(), "nex-bench-ws-"));
  const dataDir = mkdtempSync(join(tmpdir(), "nex-bench-data-"));
  return {
    workspace,
    dataDir,
    remove: () => {
      rmSync(workspace, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The arguments that point nex at the stub endpoint and a scratch data directory; with `window`, a
 * config file gives the model that context window (the stub's usage figures are not real counts).
 */
export function endpointArgs(stubUrl: string, dataDir: string, window?: number): string[] {
  const args = ["--model", "bench-model", "--base-url", `${stubUrl}/v1`, "--data-dir", dataDir];
  if (window === undefined) return args;
  const config = join(dataDir, "bench-config.json");
  writeFileSync(config, JSON.stringify({ models: { "bench-model": { contextWindow: window } } }));
  return [...args, "--config", config];
}

/**
 * The CPU time a running process has used so far, in ms: the sum over its threads (V8's and libuv's
 * too) of the kernel's scheduler statistics, in nanoseconds, where rusage's ticks are 10 ms coarse;
 * null where there are none (not Linux).
 */
export function cpuSoFarMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    let onCpuNs = 0;
    for (const thread of readdirSync(`/proc/${pid}/task`))
      onCpuNs += Number(
        readFileSync(`/proc/${pid}/task/${thread}/schedstat`, "utf8").split(" ")[0],
      );
    return Number.isFinite(onCpuNs) ? onCpuNs / 1e6 : null;
  } catch {
    return null;
  }
}
