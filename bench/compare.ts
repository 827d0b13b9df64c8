// `npm run bench -- --compare <ref>`: every path a turn takes, measured for this tree and for another
// commit in the same run. The machine is shared and noisy, so the two are alternated (A B, B A, ...)
// and each figure is a median of at least five runs; what matters is the ratio, not the seconds.
import { execFileSync, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { everythingServer } from "../test/support/mcp-servers.ts";
import { startStubEndpoint } from "../test/support/stub-endpoint.ts";
import { openaiText, openaiToolCall, type Script } from "../test/support/stub-scripts.ts";
import { cpuSoFarMs, endpointArgs, nexBin, root, runNex, scratch } from "./nex-process.ts";
import { median, say } from "./report.ts";
import { fileTurnScripts } from "./turns.ts";

const TURNS = 200;

/** A nex to measure: this tree's, or a commit's unpacked beside it. */
interface Subject {
  label: string;
  bin: string;
}

/** One workload: a figure (lower is better) from one run of `bin`. */
interface Workload {
  name: string;
  unit: "s CPU" | "ms CPU" | "ms" | "modules" | "per turn";
  measure: (bin: string) => Promise<number>;
}

/** How a subject runs: from its sources, as in a checkout, or as its package installs it. */
export type Form = "checkout" | "package";

/** `ref` (or, with no ref, this tree's files as they are now) unpacked into a temporary folder. */
function unpack(ref: string | null): { dir: string; label: string } {
  const commit = ref
    ? execFileSync("git", ["rev-parse", "--short", `${ref}^{commit}`], {
        cwd: root,
        encoding: "utf8",
      }).trim()
    : "tree";
  const dir = mkdtempSync(join(tmpdir(), `nex-bench-${commit}-`));
  const archive = ref
    ? spawnSync("git", ["archive", "--format=tar", commit], { cwd: root, maxBuffer: 1 << 30 })
    : spawnSync(
        "sh",
        // One list on stdin (xargs could split it into several archives); a file deleted but not
        // yet committed is skipped.
        [
          "-c",
          "git ls-files -z --cached --others --exclude-standard | tar -c --null --ignore-failed-read -T -",
        ],
        { cwd: root, maxBuffer: 1 << 30 },
      );
  if (archive.status !== 0)
    throw new Error(`unpacking ${ref ?? "this tree"} failed: ${archive.stderr}`);
  spawnSync("tar", ["-x", "-C", dir], { input: archive.stdout });
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
  return { dir, label: ref ? `${ref} (${commit})` : "this tree" };
}

/**
 * `ref` as its package runs once installed: its own `npm run build` (tsc's one file per module for
 * older commits, the esbuild bundle now), then no `src/`, so bin/nex.js takes the installed path.
 */
function packaged(dir: string): void {
  const build = spawnSync("npm", ["run", "build", "--silent"], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, PATH: `${join(root, "node_modules", ".bin")}:${process.env.PATH}` },
  });
  // An older commit type-checked against today's node_modules may report errors (a dependency it had
  // is gone); tsc still emits the same JavaScript, so what its package would run is there.
  if (!existsSync(join(dir, "dist", "cli", "main.js")))
    throw new Error(`npm run build in ${dir} failed: ${build.stdout}${build.stderr}`);
  if (build.status !== 0)
    say(`(${dir}: npm run build reported errors; its dist/ was emitted and is measured)`);
  rmSync(join(dir, "src"), { recursive: true, force: true });
}

/** A subject for `ref` (null: this tree) in `form`, and how to remove what it unpacked. */
function subjectOf(ref: string | null, form: Form): { subject: Subject; remove: () => void } {
  if (ref === null && form === "checkout")
    return { subject: { label: "this tree", bin: nexBin }, remove: () => {} };
  const { dir, label } = unpack(ref);
  if (form === "package") packaged(dir);
  return {
    subject: { label, bin: join(dir, "bin", "nex.js") },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The CPU seconds of one `nex run --yes` over `scripts`, with `extra` arguments and environment. */
async function runCpu(
  bin: string,
  scripts: Script[],
  extra: (dataDir: string, workspace: string) => string[] = () => [],
  env: Record<string, string> = {},
  prepare: (workspace: string) => void = () => {},
): Promise<number> {
  const dirs = scratch();
  prepare(dirs.workspace);
  const stub = await startStubEndpoint({ scripts });
  const run = await runNex(
    [
      "run",
      "--yes",
      "--max-turns",
      String(scripts.length + 5),
      ...endpointArgs(stub.url, dirs.dataDir, 131_072),
      ...extra(dirs.dataDir, dirs.workspace),
      "do the work",
    ],
    { cwd: dirs.workspace, bin, env },
  );
  await stub.close();
  dirs.remove();
  if (run.code !== 0) throw new Error(`${bin}: nex exited ${run.code}\n${run.stderr.slice(-1500)}`);
  return run.cpuMs / 1000;
}

function shellScripts(turns: number): Script[] {
  const scripts: Script[] = [];
  for (let i = 0; i < turns; i++)
    scripts.push(openaiToolCall({ name: "bash", args: { command: `true ${i}` }, id: `c${i}` }));
  scripts.push(openaiText("done"));
  return scripts;
}

/** An MCP server that nex starts and lists but the model never calls; its own CPU is not nex's. */
function idleIntegrations(dataDir: string): string[] {
  const server = everythingServer() as { command: string; args: string[] };
  const config = join(dataDir, "mcp.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        everything: {
          command: "env",
          args: ["-u", "NODE_OPTIONS", server.command, ...server.args],
        },
      },
    }),
  );
  return ["--mcp-config", config];
}

/** The git processes nex starts per shell turn (sandboxed), counted by a `git` first on PATH. */
async function gitPerShellTurn(bin: string): Promise<number> {
  const turns = 20;
  const dirs = scratch();
  const shim = join(dirs.dataDir, "bin");
  const log = join(dirs.dataDir, "git-calls");
  const git = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  mkdirSync(shim);
  writeFileSync(join(shim, "git"), `#!/bin/sh\necho >> '${log}'\nexec '${git}' "$@"\n`, {
    mode: 0o755,
  });
  await runCpu(bin, shellScripts(turns), undefined, { PATH: `${shim}:${process.env.PATH}` });
  const calls = existsSync(log) ? readFileSync(log, "utf8").length : 0;
  dirs.remove();
  return calls / turns;
}

/** From spawn to the first model request: the wall time, and the CPU nex had used by then. */
async function firstRequest(bin: string): Promise<{ wallMs: number; cpuMs: number }> {
  const dirs = scratch();
  let startedAt = 0;
  let pid: number | undefined;
  let first: { wallMs: number; cpuMs: number | null } | null = null;
  const stub = await startStubEndpoint({
    handler: () => openaiText("ok"),
    onRequest: (request) => {
      if (request.path.endsWith("/chat/completions"))
        first ??= { wallMs: performance.now() - startedAt, cpuMs: cpuSoFarMs(pid) };
    },
  });
  const run = await runNex(["run", ...endpointArgs(stub.url, dirs.dataDir), "say ok"], {
    cwd: dirs.workspace,
    bin,
    probe: false,
    onSpawn: (t, child) => {
      startedAt = t;
      pid = child;
    },
  });
  await stub.close();
  dirs.remove();
  if (run.code !== 0 || first === null)
    throw new Error(`${bin}: nex run failed (exit ${run.code}): ${run.stderr.slice(-1000)}`);
  const { wallMs, cpuMs } = first;
  if (cpuMs === null)
    throw new Error("no /proc/<pid>/schedstat here: CPU to first request unknown");
  return { wallMs, cpuMs };
}

/** How many of nex's own modules a plain one-answer `nex run` loads (bench/module-probe.js). */
async function modulesLoaded(bin: string): Promise<number> {
  const dirs = scratch();
  const counts = join(dirs.dataDir, "modules.json");
  const stub = await startStubEndpoint({ handler: () => openaiText("ok") });
  const run = await runNex(["run", ...endpointArgs(stub.url, dirs.dataDir), "say ok"], {
    cwd: dirs.workspace,
    bin,
    probe: false,
    preload: ["module-probe.js"],
    env: { NEX_BENCH_MODULES_FILE: counts },
  });
  await stub.close();
  const own =
    run.code === 0 ? (JSON.parse(readFileSync(counts, "utf8")) as { own: number }).own : 0;
  dirs.remove();
  if (run.code !== 0) throw new Error(`${bin}: nex run failed (exit ${run.code}): ${run.stderr}`);
  return own;
}

function versionMs(bin: string): Promise<number> {
  const start = performance.now();
  const result = spawnSync(process.execPath, [bin, "--version"], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`${bin} --version failed: ${result.stderr}`);
  return Promise.resolve(performance.now() - start);
}

const workloads: Workload[] = [
  {
    name: `${TURNS} file turns (write, read back)`,
    unit: "s CPU",
    measure: (bin) => runCpu(bin, fileTurnScripts(TURNS)),
  },
  {
    name: `${TURNS} file turns in a git repository`,
    unit: "s CPU",
    measure: (bin) =>
      runCpu(bin, fileTurnScripts(TURNS), undefined, {}, (workspace) =>
        execFileSync("git", ["init", "-q", workspace]),
      ),
  },
  {
    name: `${TURNS} shell turns (\`true\`, sandboxed)`,
    unit: "s CPU",
    measure: (bin) => runCpu(bin, shellScripts(TURNS)),
  },
  {
    name: `${TURNS} shell turns (\`true\`, --sandbox off)`,
    unit: "s CPU",
    measure: (bin) => runCpu(bin, shellScripts(TURNS), () => ["--sandbox", "off"]),
  },
  { name: "git processes per shell turn", unit: "per turn", measure: gitPerShellTurn },
  {
    name: `${TURNS} file turns, MCP and web enabled, unused`,
    unit: "s CPU",
    measure: (bin) =>
      runCpu(bin, fileTurnScripts(TURNS), idleIntegrations, {
        SEARXNG_URL: "http://127.0.0.1:9",
      }),
  },
  {
    name: "start-up: a one-answer run",
    unit: "ms CPU",
    measure: async (bin) => (await runCpu(bin, [openaiText("ok")])) * 1000,
  },
  { name: "nex modules a plain run loads", unit: "modules", measure: modulesLoaded },
  {
    name: "launch → first model request",
    unit: "ms",
    measure: async (bin) => (await firstRequest(bin)).wallMs,
  },
  {
    // CPU rather than wall time: on a loaded machine the wall time measures the other processes.
    name: "launch → first model request, CPU",
    unit: "ms CPU",
    measure: async (bin) => (await firstRequest(bin)).cpuMs,
  },
  { name: "nex --version", unit: "ms", measure: versionMs },
];

/**
 * Measures every workload for each of `refs` (comma-separated) and this tree, alternated (the order
 * reverses every run), `runs` times each (after one warm-up run of each, which fills the compile
 * cache), and prints medians and this tree's ratio to each ref.
 */
export async function benchCompare(
  refs: string,
  options: { runs: number; only?: string; form: Form },
): Promise<void> {
  const bases = refs
    .split(",")
    .map((ref) => ref.trim())
    .filter((ref) => ref !== "")
    .map((ref) => subjectOf(ref, options.form));
  const mine = subjectOf(null, options.form);
  const subjects: Subject[] = [...bases.map((b) => b.subject), mine.subject];
  const refLabels = bases.map((b) => b.subject.label);
  const chosen = options.only
    ? workloads.filter((w) => w.name.includes(options.only as string))
    : workloads;
  say(
    `# nex compared: ${refLabels.join(", ")} and this tree, each as ${options.form === "package" ? "its package installs it (built, no src/)" : "a checkout runs it (src/)"} (${options.runs} alternated runs)`,
  );
  try {
    const bare: number[] = [];
    const rows: string[][] = [];
    for (const workload of chosen) {
      const values: number[][] = subjects.map(() => []);
      for (const subject of subjects) await workload.measure(subject.bin);
      for (let i = 0; i < options.runs; i++) {
        const order = subjects.map((_, index) => index);
        if (i % 2 === 1) order.reverse();
        for (const index of order)
          values[index]?.push(await workload.measure((subjects[index] as Subject).bin));
        if (workload.measure === versionMs) bare.push(bareNodeMs());
      }
      const medians = values.map((v) => median(v));
      const mine = medians.at(-1) as number;
      const digits = workload.unit === "s CPU" ? 3 : workload.unit === "modules" ? 0 : 1;
      rows.push([
        workload.name,
        ...medians.map((m) => `${m.toFixed(digits)} ${workload.unit}`),
        ...medians.slice(0, -1).map((m) => `${(mine / m).toFixed(2)}×`),
      ]);
      say(
        `${workload.name}: ${values.map((v, i) => `${subjects[i]?.label} ${v.map((x) => x.toFixed(digits)).join("/")}`).join("; ")}`,
      );
    }
    const sandboxed = rows.find((row) => row[0]?.includes("shell turns (`true`, sandboxed)"));
    const unconfined = rows.find((row) => row[0]?.includes("shell turns (`true`, --sandbox off)"));
    if (sandboxed && unconfined)
      for (const [i, subject] of subjects.entries()) {
        const added =
          ((Number.parseFloat(sandboxed[i + 1] ?? "") -
            Number.parseFloat(unconfined[i + 1] ?? "")) *
            1000) /
          TURNS;
        say(
          `${subject.label}: sandboxed − unconfined ${added.toFixed(1)} ms CPU per command (goal ≤ 10)`,
        );
      }
    if (bare.length > 0) {
      const nexVersion = rows.find((row) => row[0] === "nex --version");
      const ms = median(bare);
      rows.push([
        "bare `node -e 0`",
        ...subjects.map(() => `${ms.toFixed(1)} ms`),
        ...bases.map(() => "—"),
      ]);
      if (nexVersion)
        say(
          `nex --version against bare node: ${(Number.parseFloat(nexVersion[subjects.length] ?? "") / ms).toFixed(2)}× (goal ≤ 1.1×)`,
        );
    }
    printTable(
      [
        "workload (median)",
        ...refLabels,
        "this tree",
        ...refLabels.map((label) => `ratio to ${label.split(" ")[0]}`),
      ],
      rows,
    );
  } finally {
    for (const base of [...bases, mine]) base.remove();
  }
}

function bareNodeMs(): number {
  const start = performance.now();
  spawnSync(process.execPath, ["-e", "0"]);
  return performance.now() - start;
}

function printTable(headers: string[], rows: string[][]): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  say(`\n${line(headers)}`);
  say(`| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`);
  for (const row of rows) say(line(row));
}
