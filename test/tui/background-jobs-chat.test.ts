// `/bg` in the real chat: a job the model started in the background is listed, its output shown,
// and stopped (the process really ends); the chat says which jobs it stops when it exits.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { waitForPidFile } from "../support/processes.ts";
import { keys } from "../support/pty.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";
import { spinnerShown } from "./tui-harness.ts";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test("/bg lists the model's background job, /bg ID shows its output, /bg stop ID ends it", async (t) => {
  const nex = await startNexTui(
    [
      openaiToolCall({
        name: "bash",
        args: {
          command: "echo $$ > job.pid; while true; do echo tick-$((n=n+1)); sleep 0.2; done",
          background: true,
        },
      }),
      openaiText("The watcher runs in the background."),
    ],
    // Unconfined, so the job's pid is this machine's and the test can see it end.
    { args: ["--yes", "--sandbox", "off"], cols: 100, rows: 40 },
  );
  t.after(() => nex.close());
  nex.pty.write(`start the watcher${keys.enter}`);
  await nex.pty.waitFor("The watcher runs in the background.");
  await nex.pty.waitUntil((s) => !spinnerShown(s), "turn over");
  const pidFile = join(nex.workspace, "job.pid");
  const pid = await waitForPidFile(pidFile);
  assert.ok(alive(pid), "the job runs");

  nex.pty.write(`/bg${keys.enter}`);
  await nex.pty.waitUntil((s) => /job 1\b[\s\S]*running/.test(s), "the job listed as running");
  nex.pty.write(`/bg 1${keys.enter}`);
  // Typed at once, while `/bg 1` may still run: whichever way that goes, the command is not lost.
  nex.pty.write(`/bg stop 1${keys.enter}`);
  await nex.pty.waitUntil(
    (s) => /job 1 \([\s\S]*job 1 \([\s\S]*\ntick-\d+/.test(s),
    "the job's output shown",
  );
  // Either it ran, or it waits in the prompt, said to run once `/bg 1` ends: Enter sends it then.
  await nex.pty.waitUntil((screen) => {
    if (screen.includes("Stopped")) return true;
    if (/› \/bg stop 1/.test(screen)) nex.pty.write(keys.enter);
    return false;
  }, "Stopped");
  await nex.pty.waitUntil(() => !alive(pid), "the job's process gone");
});

test("/bg with nonsense says how to use it", async (t) => {
  const nex = await startNexTui([], { cols: 100, rows: 30 });
  t.after(() => nex.close());
  nex.pty.write(`/bg please${keys.enter}`);
  await nex.pty.waitFor("Usage: /bg lists the background jobs");
  nex.pty.write(`/bg${keys.enter}`);
  await nex.pty.waitFor("No background jobs.");
});

test("leaving the chat stops its background jobs and says which", async (t) => {
  const nex = await startNexTui(
    [
      openaiToolCall({
        name: "bash",
        args: { command: "echo $$ > job.pid; while true; do sleep 0.2; done", background: true },
      }),
      openaiText("Started."),
    ],
    { args: ["--yes", "--sandbox", "off"], cols: 100, rows: 40 },
  );
  t.after(() => nex.close());
  nex.pty.write(`start it${keys.enter}`);
  await nex.pty.waitFor("Started.");
  await nex.pty.waitUntil((s) => !spinnerShown(s), "turn over");
  const pidFile = join(nex.workspace, "job.pid");
  const pid = await waitForPidFile(pidFile);
  nex.pty.write(keys.ctrlC);
  await nex.pty.waitFor("Press Ctrl-C again to exit.");
  nex.pty.write(keys.ctrlC);
  await nex.pty.waitFor("jobs end with the chat");
  await nex.pty.waitUntil(() => !alive(pid), "the job's process gone");
});
