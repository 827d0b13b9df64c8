// Prints nex's speed figures: start-up time of `nex --version`, and the CPU that `nex run` spends
// on 200 tool turns against a local stub endpoint (which runs in this process, so its own CPU is
// not counted). Run with `npm run bench`. Figures, not assertions: goals live here, not in tests.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createJournal } from "../src/session/index.ts";
import { conversation } from "../test/session/fixtures.ts";
import { startStubEndpoint } from "../test/support/stub-endpoint.ts";
import { openaiText, openaiToolCall, type Script } from "../test/support/stub-scripts.ts";

const root = resolve(import.meta.dirname, "..");
const nexBin = join(root, "bin", "nex.js");
const node = process.execPath;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** CPU seconds (user + system) of this process's waited-for children, from /proc (Linux). */
function childrenCpuSeconds(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields after the command name start at field 3; cutime and cstime are fields 16 and 17.
  const cutime = Number(fields[16 - 3]);
  const cstime = Number(fields[17 - 3]);
  return (cutime + cstime) / 100;
}

/**
 * Runs nex without blocking this process (whose event loop serves the stub endpoint), and measures
 * its wall time and the CPU it and its children used.
 */
async function runNex(
  args: string[],
  cwd: string,
): Promise<{ code: number | null; stderr: string; wall: number; cpu: number }> {
  const before = childrenCpuSeconds();
  const start = performance.now();
  const child = spawn(node, [nexBin, ...args], {
    cwd,
    env: { ...process.env, OPENAI_API_KEY: "bench" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((done) => child.on("close", done));
  return {
    code,
    stderr,
    wall: (performance.now() - start) / 1000,
    cpu: childrenCpuSeconds() - before,
  };
}

/** A throw-away workspace and data directory. */
function scratch(): { workspace: string; dataDir: string; remove: () => void } {
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

function benchVersion(runs: number): void {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const result = spawnSync(node, [nexBin, "--version"], { encoding: "utf8" });
    times.push(performance.now() - start);
    if (result.status !== 0) throw new Error(`nex --version failed: ${result.stderr}`);
  }
  const bare = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    spawnSync(node, ["-e", "0"], { encoding: "utf8" });
    bare.push(performance.now() - start);
  }
  console.log(
    `nex --version: median ${median(times).toFixed(1)} ms over ${runs} runs (bare \`node -e 0\`: ${median(bare).toFixed(1)} ms)`,
  );
}

async function benchToolTurns(turns: number): Promise<void> {
  const dirs = scratch();
  const scripts: Script[] = [];
  for (let i = 0; i < turns; i++) {
    const file = `file-${Math.floor(i / 2)}.txt`;
    scripts.push(
      i % 2 === 0
        ? openaiToolCall({
            name: "write_file",
            args: { path: file, content: `line ${i}\n`.repeat(20) },
            id: `c${i}`,
          })
        : openaiToolCall({ name: "read_file", args: { path: file }, id: `c${i}` }),
    );
  }
  scripts.push(openaiText("All files written and read back."));
  const stub = await startStubEndpoint({ scripts });
  const run = await runNex(
    [
      "run",
      "--yes",
      "--max-turns",
      String(turns + 5),
      "--model",
      "bench-model",
      "--base-url",
      `${stub.url}/v1`,
      "--data-dir",
      dirs.dataDir,
      "write and read files",
    ],
    dirs.workspace,
  );
  await stub.close();
  dirs.remove();
  if (run.code !== 0) {
    console.log(`${turns} tool turns: nex exited ${run.code}\n${run.stderr.slice(-2000)}`);
    return;
  }
  console.log(
    `${turns} tool turns: ${run.cpu.toFixed(2)} s CPU (user+system, start-up included), ${run.wall.toFixed(2)} s wall, ${stub.requests.length} requests`,
  );
}

/** End to end: `nex resume --last "task"` on journals of growing length, to the answer. */
async function benchResume(counts: number[]): Promise<void> {
  for (const count of counts) {
    const dirs = scratch();
    const journal = await createJournal(dirs.dataDir, {
      workspace: dirs.workspace,
      provider: "openai",
      model: "bench-model",
      baseUrl: "http://127.0.0.1:1/v1",
    });
    for (const message of conversation(count, count)) journal.appendMessage(message);
    journal.close();
    const stub = await startStubEndpoint({ handler: () => openaiText("ok") });
    const run = await runNex(
      [
        "resume",
        "--last",
        "--model",
        "bench-model",
        "--base-url",
        `${stub.url}/v1`,
        "--data-dir",
        dirs.dataDir,
        "continue",
      ],
      dirs.workspace,
    );
    await stub.close();
    dirs.remove();
    const line =
      run.stderr.split("\n").find((l) => l.includes("Journal ha")) ?? run.stderr.slice(-300);
    console.log(
      `nex resume, ${count} messages: ${run.wall.toFixed(2)} s wall, ${run.cpu.toFixed(2)} s CPU; ${line.replace(/^nex: /, "")}`,
    );
  }
}

benchVersion(15);
await benchToolTurns(200);
await benchResume([1_000, 10_000, 100_000]);
