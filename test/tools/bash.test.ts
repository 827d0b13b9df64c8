import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { waitForPidFile } from "../support/processes.ts";
import { host, run, sandbox } from "./helpers.ts";

// A killed process stays a zombie until its new parent reaps it; a zombie runs nothing, so it counts as gone.
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100; i += 1) {
    if (!alive(pid)) return true;
    await sleep(50);
  }
  return false;
}

test("bash runs in the workspace and returns the exit code with stdout and stderr together", async () => {
  const box = sandbox();
  const out = await run(host(box), "bash", { command: "pwd; echo to-stderr >&2" });
  assert.equal(out.isError, false);
  assert.equal(
    out.content,
    `Exit code 0. Output (${box.workspace.length + 1 + 10} bytes):\n${box.workspace}\nto-stderr\n`,
  );
  assert.equal(out.details?.type === "bash" && out.details.exitCode, 0);
});

test("a failing command is reported with its exit code", async () => {
  const out = await run(host(sandbox()), "bash", { command: "echo nope; exit 7" });
  assert.equal(out.isError, true);
  assert.equal(out.code, "failed");
  assert.match(out.content, /^Exit code 7\./);
  assert.match(out.content, /nope/);
});

test("long output is stored whole; the result keeps head and tail and says where the rest is", async () => {
  const box = sandbox();
  const resultsDir = join(box.root, "results");
  const out = await run(host(box, { outputCap: 2000, resultsDir }), "bash", {
    command: "seq 1 100000",
  });
  assert.equal(out.isError, false);
  assert.match(
    out.content,
    /Output \(588,895 bytes\):\n\[The full result \(588,895 bytes, 100,000 lines\) is more than fits the context; stored whole as "(@results\/[\w.-]+)"[^\n]*\n1\n2\n3\n/,
  );
  const [stored] = readdirSync(resultsDir);
  const expected = Array.from({ length: 100_000 }, (_, i) => `${i + 1}\n`).join("");
  assert.equal(readFileSync(join(resultsDir, stored ?? ""), "utf8"), expected, "byte for byte");
  const page = await run(host(box, { resultsDir }), "read_file", {
    path: `@results/${stored}`,
    offset: 77_777,
    limit: 1,
  });
  assert.match(page.content, /77777\t77777/);
  const cut = Number(
    /\[… ([\d,]+) bytes cut from the middle of the output …\]/
      .exec(out.content)?.[1]
      ?.replace(/,/g, ""),
  );
  assert.ok(cut > 586_000 && cut < 588_895, `cut ${cut}`);
  assert.equal(out.content.match(/bytes cut/g)?.length, 1);
  assert.ok(out.content.trimEnd().endsWith("99999\n100000"));
});

test("a timeout stops the command and its background grandchild (the whole process group)", async () => {
  const box = sandbox();
  const tools = host(box, { bashTimeoutMs: 300, killGraceMs: 200 });
  const out = await run(tools, "bash", { command: "sleep 30 & echo $! > bg.pid; sleep 30; wait" });
  assert.equal(out.code, "timeout");
  assert.match(
    out.content,
    /Timed out after 0\.3 s: the command and its child processes were stopped/,
  );
  assert.equal(out.details?.type === "bash" && out.details.timedOut, true);
  const pid = Number(readFileSync(box.path("bg.pid"), "utf8"));
  assert.ok(pid > 0);
  assert.equal(await gone(pid), true, `background sleep ${pid} is still running`);
});

test("a command that ignores SIGTERM is killed with SIGKILL after the grace period", async () => {
  const box = sandbox();
  const tools = host(box, { bashTimeoutMs: 200, killGraceMs: 200 });
  const out = await run(tools, "bash", {
    command: "trap '' TERM; sleep 30 & echo $! > bg.pid; wait",
  });
  assert.equal(out.code, "timeout");
  const pid = Number(readFileSync(box.path("bg.pid"), "utf8"));
  assert.equal(await gone(pid), true);
});

test("interrupting (AbortSignal) stops a running command and its children", async () => {
  const box = sandbox();
  const controller = new AbortController();
  const pending = run(
    host(box, { killGraceMs: 200 }),
    "bash",
    { command: "sleep 30 & echo $! > bg.pid; wait" },
    { signal: controller.signal },
  );
  const pid = await waitForPidFile(box.path("bg.pid"));
  controller.abort();
  const out = await pending;
  assert.equal(out.code, "aborted");
  assert.match(out.content, /Interrupted/);
  assert.equal(await gone(pid), true);
});

test("background processes left by a finished command are stopped", async () => {
  const box = sandbox();
  const out = await run(host(box, { killGraceMs: 200 }), "bash", {
    command: "sleep 30 >/dev/null 2>&1 & echo $! > bg.pid",
  });
  assert.equal(out.isError, false, out.content);
  const pid = Number(readFileSync(box.path("bg.pid"), "utf8"));
  assert.equal(await gone(pid), true);
});

test("a per-call timeout_seconds cannot exceed the host's maximum", async () => {
  const box = sandbox();
  const out = await run(host(box, { maxBashTimeoutMs: 200, killGraceMs: 100 }), "bash", {
    command: "sleep 5",
    timeout_seconds: 60,
  });
  assert.equal(out.code, "timeout");
  assert.match(out.content, /Timed out after 0\.2 s/);
});

test("a background process that ignores SIGTERM is killed after the command finishes", async () => {
  const box = sandbox();
  const out = await run(host(box, { killGraceMs: 200 }), "bash", {
    // The command ends only once the background process ignores SIGTERM.
    command:
      "(trap '' TERM; echo $BASHPID > bg.pid; exec sleep 30) >/dev/null 2>&1 & while [ ! -s bg.pid ]; do sleep 0.01; done",
  });
  assert.equal(out.isError, false, out.content);
  const pid = Number(readFileSync(box.path("bg.pid"), "utf8"));
  assert.equal(await gone(pid), true);
});

test("nex's own secrets never reach a stored result, even split between chunks of output", async () => {
  const box = sandbox();
  const resultsDir = join(box.root, "results");
  const key = "sk-live-0123456789abcdefSECRET";
  const tools = host(box, {
    outputCap: 2000,
    resultsDir,
    redact: (text) => text.replaceAll(key, "[redacted: OPENAI_API_KEY]"),
  });
  // The key printed many times among 200 KB, so pipe chunks are bound to cut through some of them.
  const out = await run(tools, "bash", {
    command: `for i in $(seq 1 5000); do printf 'line %s ${key}\\n' "$i"; done`,
  });
  const [stored] = readdirSync(resultsDir);
  const text = readFileSync(join(resultsDir, stored ?? ""), "utf8");
  assert.equal(text.includes("sk-live"), false, "no whole or partial key on disk");
  assert.equal(text.split("[redacted: OPENAI_API_KEY]").length - 1, 5000);
  assert.match(out.content, /stored whole/);
});

test("a stored result's name cannot climb out of the store", async () => {
  const box = sandbox();
  const resultsDir = join(box.root, "results");
  const tools = host(box, { outputCap: 2000, resultsDir });
  await run(tools, "bash", { command: "seq 1 100000" });
  for (const path of ["@results/..", "@results/.", "@results/../results"]) {
    // Not a stored result's name: read as a workspace path, where there is no such line.
    const out = await run(tools, "grep", { pattern: "99999", path });
    assert.doesNotMatch(out.content, /99999:/, path);
  }
});
