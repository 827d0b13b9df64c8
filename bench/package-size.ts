// The installed package: its size, how long `npm install -g` of the tarball takes, how fast the
// installed `nex --version` starts next to a bare `node -e 0`, and the CPU an installed `nex run`
// spends before its first model request. Figures, not assertions (never part of `npm test`).
//   node bench/package-size.ts [--tarball nex.tgz] [--against old.tgz] [--node 22.12.0] [--runs 20]
// Without --tarball it packs the checkout. --against measures another tarball side by side (the
// package before a change). Every figure is taken with the same Node.js (the floor by default).
import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { parseArgs, promisify } from "node:util";
import { exactNode, floorVersion, npm } from "../scripts/exact-node.ts";
import { openaiText, startStubEndpoint, status } from "../src/demo/scripted-endpoint.ts";
import { type Figure, median, printSummary, say, spread, verdict } from "./report.ts";

const run = promisify(execFile);
const root = resolve(import.meta.dirname, "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  name: string;
  engines: { node: string };
};

const SIZE_GOAL_MB = 40;
const INSTALL_GOAL_S = 15;
const VERSION_GOAL_RATIO = 1.1;

const { values } = parseArgs({
  options: {
    tarball: { type: "string" },
    against: { type: "string" },
    node: { type: "string" },
    runs: { type: "string", default: "20" },
  },
});
const runs = Number(values.runs);
const work = mkdtempSync(join(tmpdir(), "nex-bench-package-"));

function envWith(dirs: string[], home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    // NODE_EXTRA_CA_CERTS stays: a machine behind a TLS-inspecting proxy needs it to reach the registry.
    if (!/^npm_|^NEX_|^NODE_(?!EXTRA_CA_CERTS$)/i.test(key)) env[key] = value;
  }
  env.PATH = [...dirs, "/usr/local/bin", "/usr/bin", "/bin"].join(delimiter);
  env.XDG_CONFIG_HOME = join(home, "config");
  env.XDG_DATA_HOME = join(home, "data");
  env.NO_COLOR = "1";
  return env;
}

/**
 * Wall time of one run, and its CPU (user+system as the kernel accounts it, from bash's `time`, to
 * the millisecond): on a loaded machine the wall time mostly measures the queue.
 */
function timeSpawn(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ wallMs: number; cpuMs: number }> {
  return new Promise((done, failed) => {
    const start = performance.now();
    const child = spawn(
      "bash",
      ["-c", 'TIMEFORMAT="%3U %3S"; { time "$@" >/dev/null 2>&1; } 2>&1', "bash", command, ...args],
      { env, stdio: ["ignore", "pipe", "ignore"] },
    );
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk;
    });
    child.on("error", failed);
    child.on("close", (code) => {
      const wallMs = performance.now() - start;
      if (code !== 0) return failed(new Error(`${command} exit ${code}`));
      const [user, system] = out.trim().split(" ").map(Number);
      done({ wallMs, cpuMs: ((user ?? 0) + (system ?? 0)) * 1000 });
    });
  });
}

/** User+system CPU of a live process so far, from /proc (clock ticks of 10 ms). */
function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface Measured {
  label: string;
  installS: number;
  sizeMb: number;
  versionMs: number[];
  bareMs: number[];
  versionCpuMs: number[];
  bareCpuMs: number[];
  firstRequestCpuMs: number[];
}

async function measure(tarball: string, label: string, nodeBin: string): Promise<Measured> {
  const home = join(work, label);
  const prefix = join(home, "prefix");
  mkdirSync(home, { recursive: true });
  const env = envWith([nodeBin], home);
  // A first install fills npm's cache with whatever the package needs; the second is measured.
  await run(
    npm,
    ["install", "-g", "--prefix", join(home, "warm"), "--no-fund", "--no-audit", tarball],
    // A registry that stalls fails the figure rather than hanging the bench.
    { env, maxBuffer: 64 * 2 ** 20, timeout: 600_000 },
  );
  const started = performance.now();
  await run(
    npm,
    ["install", "-g", "--prefix", prefix, "--prefer-offline", "--no-fund", "--no-audit", tarball],
    { env, maxBuffer: 64 * 2 ** 20, timeout: 600_000 },
  );
  const installS = (performance.now() - started) / 1000;
  // The package's own name, which the other tarball may not share.
  const [installedName] = readdirSync(join(prefix, "lib", "node_modules"));
  const { stdout: du } = await run("du", [
    "-sk",
    join(prefix, "lib", "node_modules", installedName ?? pkg.name),
  ]);
  const sizeMb = Number(du.split("\t")[0]) / 1024;

  const nex = join(prefix, "bin", "nex");
  const node = join(nodeBin, "node");
  const userEnv = envWith([join(prefix, "bin"), nodeBin], home);
  await timeSpawn(nex, ["--version"], userEnv);
  const versionMs: number[] = [];
  const bareMs: number[] = [];
  const versionCpuMs: number[] = [];
  const bareCpuMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const ours = await timeSpawn(nex, ["--version"], userEnv);
    const bare = await timeSpawn(node, ["-e", "0"], userEnv);
    versionMs.push(ours.wallMs);
    versionCpuMs.push(ours.cpuMs);
    bareMs.push(bare.wallMs);
    bareCpuMs.push(bare.cpuMs);
  }

  const firstRequestCpuMs: number[] = [];
  for (let i = 0; i <= Math.min(runs, 10); i++) {
    let pid = 0;
    let cpu: number | null = null;
    const stub = await startStubEndpoint({
      handler: (request) => {
        if (!request.path.endsWith("/chat/completions")) return status(404);
        cpu ??= cpuMsOf(pid);
        return openaiText("ok");
      },
    });
    const project = mkdtempSync(join(home, "project-"));
    const child = spawn(
      nex,
      ["run", "--model", "bench-model", "--base-url", `${stub.url}/v1`, "say ok"],
      { cwd: project, env: { ...userEnv, OPENAI_API_KEY: "sk-bench" }, stdio: "ignore" },
    );
    pid = child.pid ?? 0;
    const code = await new Promise((done) => child.on("close", done));
    await stub.close();
    rmSync(project, { recursive: true, force: true });
    if (code !== 0 || cpu === null) throw new Error(`${label}: nex run failed (exit ${code})`);
    if (i > 0) firstRequestCpuMs.push(cpu); // the first run fills the compile cache
  }
  return { label, installS, sizeMb, versionMs, bareMs, versionCpuMs, bareCpuMs, firstRequestCpuMs };
}

async function pack(): Promise<string> {
  const dest = join(work, "packs");
  mkdirSync(dest);
  await run(npm, ["pack", "--pack-destination", dest], { cwd: root, maxBuffer: 64 * 2 ** 20 });
  const name = readdirSync(dest).find((file) => file.endsWith(".tgz"));
  if (!name) throw new Error("npm pack wrote no tarball");
  return join(dest, name);
}

function report(m: Measured): Figure[] {
  say(`\n## ${m.label}`);
  say(`installed size: ${m.sizeMb.toFixed(1)} MB; npm install -g: ${m.installS.toFixed(1)} s`);
  say(`nex --version: wall ${spread(m.versionMs)}; CPU ${spread(m.versionCpuMs)}`);
  say(`node -e 0:     wall ${spread(m.bareMs)}; CPU ${spread(m.bareCpuMs)}`);
  say(`nex run, CPU to the first model request: ${spread(m.firstRequestCpuMs)}`);
  // On a loaded machine the wall times mostly measure the queue: CPU is what start-up costs.
  const ratio = median(m.versionCpuMs) / median(m.bareCpuMs);
  const wallRatio = Math.min(...m.versionMs) / Math.min(...m.bareMs);
  const section = `package (${m.label})`;
  return [
    {
      section,
      name: "installed size",
      value: `${m.sizeMb.toFixed(1)} MB`,
      goal: `≤ ${SIZE_GOAL_MB} MB`,
      verdict: verdict(m.sizeMb <= SIZE_GOAL_MB),
    },
    {
      section,
      name: "npm install -g of the tarball",
      value: `${m.installS.toFixed(1)} s`,
      goal: `≤ ${INSTALL_GOAL_S} s`,
      verdict: verdict(m.installS <= INSTALL_GOAL_S),
    },
    {
      section,
      name: "nex --version / node -e 0",
      value: `${ratio.toFixed(2)}× CPU (${median(m.versionCpuMs).toFixed(0)} / ${median(m.bareCpuMs).toFixed(0)} ms); fastest wall ${wallRatio.toFixed(2)}×`,
      goal: `≤ ${VERSION_GOAL_RATIO}×`,
      verdict: verdict(ratio <= VERSION_GOAL_RATIO),
    },
    {
      section,
      name: "nex run CPU to first model request",
      value: `${median(m.firstRequestCpuMs).toFixed(0)} ms median`,
      goal: values.against ? "lower than the other package" : "(info)",
      verdict: "info",
    },
  ];
}

try {
  const node = await exactNode(values.node ?? floorVersion(pkg.engines.node));
  say(`# The installed package, on Node.js ${node.version}`);
  const tarball = values.tarball ? resolve(values.tarball) : await pack();
  const figures: Figure[] = [];
  const current = await measure(tarball, "this package", node.dir);
  figures.push(...report(current));
  if (values.against) {
    const other = await measure(resolve(values.against), "the other package", node.dir);
    figures.push(...report(other));
    const ours = median(current.firstRequestCpuMs);
    const theirs = median(other.firstRequestCpuMs);
    figures.push({
      section: "package (side by side)",
      name: "CPU to first model request",
      value: `${ours.toFixed(0)} ms vs ${theirs.toFixed(0)} ms`,
      goal: "lower than the other package",
      verdict: verdict(ours < theirs),
    });
  }
  printSummary(figures);
} finally {
  rmSync(work, { recursive: true, force: true });
}
