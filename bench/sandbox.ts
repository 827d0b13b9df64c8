// What the OS sandbox adds to starting a command: `bash -c true` alone, then the same command through
// the sandbox exactly as the bash tool starts it (policy built, bubblewrap, namespaces, mounts).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCommandSandbox } from "../src/tools/index.ts";
import { type Figure, median, say, spread, verdict } from "./report.ts";

const GOAL_MS = 20;

async function timeRuns(runs: number, start: () => void | Promise<void>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs + 2; i++) {
    const t = performance.now();
    await start();
    if (i >= 2) times.push(performance.now() - t);
  }
  return times;
}

export async function benchSandbox(options: { quick: boolean }): Promise<Figure[]> {
  say("\n## Sandbox (bubblewrap)");
  const workspace = mkdtempSync(join(tmpdir(), "nex-bench-sandbox-"));
  mkdirSync(join(workspace, ".git", "hooks"), { recursive: true });
  const sandbox = createCommandSandbox(
    workspace,
    { mode: "workspace-write", network: false },
    {
      platform: process.platform,
      path: process.env.PATH,
      uid: process.getuid?.() ?? -1,
      home: process.env.HOME,
    },
  );
  if (sandbox.state().type !== "active") {
    say(`skipped: ${sandbox.describe()}`);
    return [
      {
        section: "sandbox",
        name: "sandbox start-up",
        value: "not measured",
        goal: `≤ ${GOAL_MS} ms`,
        verdict: "info",
      },
    ];
  }
  const runs = options.quick ? 10 : 30;
  const plain = await timeRuns(runs, () => {
    spawnSync("bash", ["-c", "true"], { cwd: workspace });
  });
  const confined = await timeRuns(runs, async () => {
    const launch = await sandbox.launch("true", workspace);
    spawnSync(launch.file, launch.args.slice(2), { cwd: workspace });
  });
  // With `allowHosts` a command also gets nex's proxy and an in-sandbox forwarder (a Node.js start).
  const filteredSandbox = createCommandSandbox(
    workspace,
    { mode: "workspace-write", network: false, allowHosts: ["npm"] },
    {
      platform: process.platform,
      path: process.env.PATH,
      uid: process.getuid?.() ?? -1,
      home: process.env.HOME,
    },
  );
  const filtered = await timeRuns(runs, async () => {
    const launch = await filteredSandbox.launch("true", workspace);
    spawnSync(launch.file, launch.args.slice(2), { cwd: workspace });
    launch.release();
  });
  const added = median(confined) - median(plain);
  const addedByFilter = median(filtered) - median(confined);
  say(`bash -c true:            ${spread(plain)}`);
  say(`the same, sandboxed:     ${spread(confined)}`);
  say(`added by the sandbox:    ${added.toFixed(1)} ms (goal ≤ ${GOAL_MS} ms)`);
  say(
    `sandboxed, allowHosts:   ${spread(filtered)} (+${addedByFilter.toFixed(1)} ms: proxy and forwarder)`,
  );
  return [
    {
      section: "sandbox",
      name: "added by sandbox.allowHosts",
      value: `${addedByFilter.toFixed(1)} ms`,
      goal: "(a Node.js start inside the sandbox)",
      verdict: "info",
    },
    {
      section: "sandbox",
      name: "start-up added to a command",
      value: `${added.toFixed(1)} ms`,
      goal: `≤ ${GOAL_MS} ms`,
      verdict: verdict(added <= GOAL_MS),
    },
  ];
}
