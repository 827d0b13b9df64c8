// Start-up: `nex --version`, and `nex run` from spawn to its first request at the stub endpoint.
import { spawnSync } from "node:child_process";
import { startStubEndpoint } from "../test/support/stub-endpoint.ts";
import { openaiText } from "../test/support/stub-scripts.ts";
import { endpointArgs, nexBin, runNex, scratch } from "./nex-process.ts";
import { type Figure, median, say, spread, verdict } from "./report.ts";

const VERSION_GOAL_MS = 60;
// Goal for spawn → first model request. A human reads a reply that starts within ~0.3 s as immediate,
// and a local model's own time to first token is typically 0.1-0.5 s; 250 ms leaves nex's start-up
// (Node.js ~35 ms, loading and compiling nex, reading configuration, the endpoint's window discovery)
// no bigger than the model's part of the wait.
const FIRST_REQUEST_GOAL_MS = 250;

function timeSpawn(args: string[]): number {
  const start = performance.now();
  const result = spawnSync(process.execPath, args, { encoding: "utf8" });
  const ms = performance.now() - start;
  if (result.status !== 0) throw new Error(`${args.join(" ")} failed: ${result.stderr}`);
  return ms;
}

function benchVersion(runs: number): Figure[] {
  timeSpawn([nexBin, "--version"]); // warms the file cache
  const nex: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < runs; i++) {
    nex.push(timeSpawn([nexBin, "--version"]));
    bare.push(timeSpawn(["-e", "0"]));
  }
  say(`nex --version: ${spread(nex)}; bare \`node -e 0\`: ${spread(bare)}`);
  return [
    {
      section: "start-up",
      name: "nex --version",
      value: `${median(nex).toFixed(1)} ms median (node -e 0: ${median(bare).toFixed(1)} ms)`,
      goal: `< ${VERSION_GOAL_MS} ms (pi ~900 ms)`,
      verdict: verdict(median(nex) < VERSION_GOAL_MS),
    },
  ];
}

async function benchFirstRequest(runs: number): Promise<Figure[]> {
  const firstAny: number[] = [];
  const firstModel: number[] = [];
  const walls: number[] = [];
  let paths: string[] = [];
  for (let i = 0; i <= runs; i++) {
    const dirs = scratch();
    let startedAt = 0;
    let any: number | null = null;
    let model: number | null = null;
    const stub = await startStubEndpoint({
      handler: () => openaiText("ok"),
      onRequest: (request) => {
        const now = performance.now();
        any ??= now - startedAt;
        if (request.path.endsWith("/chat/completions")) model ??= now - startedAt;
      },
    });
    const run = await runNex(["run", ...endpointArgs(stub.url, dirs.dataDir), "say ok"], {
      cwd: dirs.workspace,
      probe: false,
      onSpawn: (t) => {
        startedAt = t;
      },
    });
    paths = stub.requests.map((r) => `${r.method} ${r.path}`);
    await stub.close();
    dirs.remove();
    if (run.code !== 0 || any === null || model === null) {
      throw new Error(`nex run failed (exit ${run.code}): ${run.stderr.slice(-1000)}`);
    }
    if (i === 0) continue; // the first run fills the compile cache
    firstAny.push(any);
    firstModel.push(model);
    walls.push(run.wallMs);
  }
  say(`nex run → first request of any kind: ${spread(firstAny)}`);
  say(`nex run → first model request (POST /v1/chat/completions): ${spread(firstModel)}`);
  say(`nex run, whole one-answer run: ${spread(walls)}`);
  say(`  requests of one run: ${paths.join(", ")}`);
  return [
    {
      section: "start-up",
      name: "nex run → first model request",
      value: `${median(firstModel).toFixed(1)} ms median (first request ${median(firstAny).toFixed(1)} ms)`,
      goal: `< ${FIRST_REQUEST_GOAL_MS} ms`,
      verdict: verdict(median(firstModel) < FIRST_REQUEST_GOAL_MS),
    },
  ];
}

/** Start-up figures: `nex --version` and `nex run` to its first request. */
export async function benchStartup(options: { quick: boolean }): Promise<Figure[]> {
  say("\n## Start-up");
  return [
    ...benchVersion(options.quick ? 10 : 20),
    ...(await benchFirstRequest(options.quick ? 5 : 10)),
  ];
}
