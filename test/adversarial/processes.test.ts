// Stopping nex stops its work: a signal to the pid the user started (a supervisor, `kill`, a CI
// cancel, a closed terminal) stops the running command and everything it started, journals, and
// exits with 128 + the signal's number, also when bin/nex.js re-executes itself under the bundled
// Node because the system's is too old (CI's machine: Node 20).
import assert from "node:assert/strict";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { processesWith } from "../faults/scenarios-process.ts";
import { makeSandbox, type NexResult } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { until } from "../support/until.ts";
import { startNexTui } from "../tui/cli-harness.ts";

const nexBin = resolve(import.meta.dirname, "..", "..", "bin", "nex.js");

/** The system's Node when it is older than nex needs, so that bin/nex.js re-executes itself. */
function oldNode(): string | null {
  const path = "/usr/bin/node";
  if (!existsSync(path)) return null;
  const version = execFileSync(path, ["--version"], { encoding: "utf8" }).trim().slice(1);
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major < 22 || (major === 22 && minor < 18) ? path : null;
}
const OLD_NODE = oldNode();
const launchers = [
  { label: "nex", node: process.execPath, skip: false as string | false },
  {
    label: "nex re-executed by its launcher (system Node too old)",
    node: OLD_NODE ?? "",
    skip: OLD_NODE
      ? false
      : "no system Node older than 22.18 at /usr/bin/node to start the launcher",
  },
];

function startWith(
  node: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; detached?: boolean },
): { child: ChildProcess; done: Promise<NexResult> } {
  const child = spawn(node, [nexBin, ...args], { ...options, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const done = new Promise<NexResult>((resolveDone) => {
    child.on("close", (code, signal) => resolveDone({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

/** Whether signal `number` is pending for `pid` (sent, not yet delivered), per /proc/PID/status. */
function pending(pid: number, number: number): boolean {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return ["SigPnd", "ShdPnd"].some((field) => {
    const mask = new RegExp(`^${field}:\\s*([0-9a-f]+)$`, "m").exec(status)?.[1] ?? "0";
    return ((BigInt(`0x${mask}`) >> BigInt(number - 1)) & 1n) === 1n;
  });
}

const sizeOf = (path: string) => statSync(path, { throwIfNoEntry: false })?.size ?? 0;

const loop = (marker: string) => `while :; do echo tick >> ticks.log; sleep 0.05; done # ${marker}`;

/** A model that runs a command (by default one writing a line every 50 ms until stopped), then answers. */
function loopScripts(marker: string, command = loop(marker)) {
  return [
    openaiToolCall({ name: "bash", args: { command, timeout_seconds: 600 } }),
    openaiText("The loop finished."),
  ];
}

/** Starts a headless run whose model runs the loop (or `command`). */
async function runLongCommand(
  node: string,
  command?: (marker: string) => string,
  ownGroup = false,
  extra: string[] = [],
) {
  const marker = `nex-loop-${randomUUID()}`;
  const stub = await startStubEndpoint({ scripts: loopScripts(marker, command?.(marker)) });
  const box = makeSandbox();
  const task = `run the loop ${marker}`;
  const nex = startWith(
    node,
    [
      "run",
      "--yes",
      "--model",
      "stub-model",
      "--base-url",
      `${stub.url}/v1`,
      "--data-dir",
      box.dataDir,
      ...extra,
      task,
    ],
    { cwd: box.workspace, env: box.env, detached: ownGroup },
  );
  const ticks = join(box.workspace, "ticks.log");
  await until(() => sizeOf(ticks) > 0, "the command writes");
  return { ...nex, stub, marker, ticks };
}

/** The file does not grow over a second, and no process of the command is left. */
async function assertStopped(marker: string, ticks: string): Promise<void> {
  await until(() => processesWith(marker).length === 0, "the command's processes are gone");
  const size = sizeOf(ticks);
  await sleep(1000);
  assert.equal(sizeOf(ticks), size, "the file still grows after nex exited");
}

for (const launcher of launchers) {
  for (const [signal, code] of [
    ["SIGTERM", 143],
    ["SIGHUP", 129],
    ["SIGINT", 130],
  ] as const) {
    test(`${signal} to ${launcher.label} stops the running command and its children, journals, and exits ${code}`, {
      skip: launcher.skip,
      timeout: 120_000,
    }, async () => {
      const run = await runLongCommand(launcher.node);
      run.child.kill(signal);
      const result = await run.done;
      await run.stub.close();
      assert.equal(result.code, code, result.stderr);
      assert.match(
        result.stderr,
        /interrupted.*the session is saved, continue it with `nex resume/,
      );
      assert.match(
        result.stderr,
        /Interrupted: the command and its child processes were stopped|interrupted/,
      );
      assert.equal(
        run.stub.requestsTo("/v1/chat/completions").length,
        1,
        "no request after the signal",
      );
      await assertStopped(run.marker, run.ticks);
    });
  }
}

test("Ctrl-C in a terminal (SIGINT to the launcher and nex together) is one interrupt: nex stops cleanly, not at once", {
  skip: launchers[1]?.skip ?? true,
  timeout: 120_000,
}, async () => {
  const run = await runLongCommand(OLD_NODE ?? "", undefined, true);
  // As a terminal does: the signal goes to the foreground process group, both processes.
  process.kill(-(run.child.pid ?? 0), "SIGINT");
  const result = await run.done;
  await run.stub.close();
  assert.equal(result.code, 130, result.stderr);
  assert.doesNotMatch(result.stderr, /again, exiting now/);
  assert.match(result.stderr, /the session is saved/);
  await assertStopped(run.marker, run.ticks);
});

test("a second SIGTERM exits at once, and still no process of the command (which ignores SIGTERM) is left", {
  timeout: 120_000,
}, async () => {
  // Unconfined: in the sandbox the first SIGTERM already ends the command with bubblewrap's namespace.
  const run = await runLongCommand(
    process.execPath,
    (marker) => `trap "" TERM; ${loop(marker)}`,
    false,
    ["--sandbox", "off"],
  );
  run.child.kill("SIGTERM");
  // Two signals of one kind pending at once are delivered as one: send the second only once the
  // kernel has delivered the first (a starved nex may take seconds to be scheduled).
  const pid = run.child.pid ?? 0;
  await until(() => !pending(pid, 15), "the first SIGTERM delivered");
  run.child.kill("SIGTERM");
  const result = await run.done;
  await run.stub.close();
  assert.equal(result.code, 143, result.stderr);
  assert.match(result.stderr, /SIGTERM again, exiting now/);
  await assertStopped(run.marker, run.ticks);
});

test("SIGTERM to nex while its command waits on a writer it detached (setsid -f) stops the writer too", {
  timeout: 120_000,
}, async () => {
  const run = await runLongCommand(
    process.execPath,
    (marker) => `setsid -f sh -c '${loop(marker)}' >/dev/null 2>&1; sleep 600`,
  );
  run.child.kill("SIGTERM");
  const result = await run.done;
  await run.stub.close();
  assert.equal(result.code, 143, result.stderr);
  await assertStopped(run.marker, run.ticks);
});

test("when the launcher is killed outright (SIGKILL), the re-executed nex stops its work instead of running on alone", {
  skip: launchers[1]?.skip ?? true,
  timeout: 120_000,
}, async () => {
  const run = await runLongCommand(OLD_NODE ?? "");
  run.child.kill("SIGKILL");
  // The task's text (with the marker) is on the command line of both launcher and child.
  await until(
    () => processesWith(`run the loop ${run.marker}`).length === 0,
    "the re-executed nex exits",
  );
  await run.done;
  await run.stub.close();
  await assertStopped(run.marker, run.ticks);
});

for (const [signal, code] of [
  ["SIGTERM", 143],
  ["SIGHUP", 129],
] as const) {
  test(`${signal} to the chat stops the running command and its children and exits ${code}`, {
    timeout: 120_000,
  }, async (t) => {
    const marker = `nex-loop-${randomUUID()}`;
    const nex = await startNexTui(loopScripts(marker), { args: ["--yes"] });
    t.after(() => nex.close());
    const ticks = join(nex.workspace, "ticks.log");
    nex.pty.write("run the loop\r");
    await until(() => sizeOf(ticks) > 0, "the command writes");
    process.kill(nex.pty.pid, signal);
    assert.equal(await nex.pty.exited, code);
    assert.equal(nex.chatRequests().length, 1, "no request after the signal");
    await assertStopped(marker, ticks);
  });
}

test("closing the chat's terminal stops the running command and its children", {
  timeout: 120_000,
}, async (t) => {
  const marker = `nex-loop-${randomUUID()}`;
  const nex = await startNexTui(loopScripts(marker), { args: ["--yes"] });
  t.after(() => nex.close());
  const ticks = join(nex.workspace, "ticks.log");
  nex.pty.write("run the loop\r");
  await until(() => sizeOf(ticks) > 0, "the command writes");
  const pid = nex.pty.pid;
  nex.pty.hangUp();
  await until(() => !existsSync(`/proc/${pid}`) || /^Z/.test(state(pid)), "nex exits");
  await assertStopped(marker, ticks);
});

function state(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2);
  } catch {
    return "Z";
  }
}
