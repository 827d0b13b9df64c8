// Adversarial review of background jobs: none outlives nex, however nex ends.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { sandboxMissing } from "../support/bwrap.ts";
import { makeSandbox, startNex } from "../support/cli.ts";
import { processesWith } from "../support/processes.ts";
import { hang, openaiText, openaiToolCall, startStubEndpoint } from "../support/stub-endpoint.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A process as the failure message shows it: pid, state, parent, command line. */
function describeProcess(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const line = readFileSync(`/proc/${pid}/cmdline`, "latin1").replaceAll("\0", " ");
    return `${pid} (${state}, parent ${ppid}): ${line.slice(0, 80)}…${line.slice(-60)}`;
  } catch {
    return `${pid} (gone)`;
  }
}

for (const [sandbox, background] of [
  ["off", true],
  ["workspace-write", true],
  ["off", false],
] as const)
  test(`a ${background ? "background job" : "running command"} (sandbox ${sandbox}) dies with nex when nex is killed outright (SIGKILL)`, {
    timeout: 120_000,
  }, async () => {
    const box = makeSandbox();
    const marker = `nexjob${randomUUID().slice(0, 8)}`;
    const stub = await startStubEndpoint({
      scripts: [
        openaiToolCall({
          name: "bash",
          args: { command: `exec -a ${marker} sleep 1000`, background },
        }),
        hang(),
      ],
    });
    const args = ["run", "--yes", "--sandbox", sandbox, "--model", "m"];
    const nex = startNex([...args, "--base-url", `${stub.url}/v1`, "go"], {
      cwd: box.workspace,
      env: box.env,
    });
    try {
      for (let i = 0; i < 1200 && processesWith(marker).length === 0; i++) await sleep(50);
      assert.ok(processesWith(marker).length > 0, "the job was running");
      nex.child.kill("SIGKILL");
      await nex.done;
      let left = processesWith(marker);
      for (let i = 0; i < 200 && left.length > 0; i++) {
        await sleep(50);
        left = processesWith(marker);
      }
      assert.deepEqual(left, [], "the job outlived nex");
    } finally {
      for (const pid of processesWith(marker)) process.kill(pid, "SIGKILL");
      await stub.close();
    }
  });

// bubblewrap ties the sandbox to nex in steps (launcher, then the namespace's init), and the init
// takes its parent-death signal only after it has forked the command. Killed at every moment of a
// sandboxed command's start, nex must leave nothing of it running.
test("nex killed outright at any moment of a sandboxed command's start leaves nothing of it running", {
  timeout: 300_000,
  skip: sandboxMissing() ?? false,
}, async () => {
  const box = makeSandbox();
  const survivors: string[] = [];
  for (let delayMs = 0; delayMs <= 40; delayMs++) {
    const marker = `nexstart${randomUUID().slice(0, 8)}`;
    const started = spawnSync(
      process.execPath,
      [
        join(import.meta.dirname, "../support/sandboxed-command-main.ts"),
        box.workspace,
        marker,
        String(delayMs),
      ],
      { encoding: "utf8", env: box.env },
    );
    assert.equal(started.signal, "SIGKILL", started.stderr);
    let left = processesWith(marker);
    for (let i = 0; i < 200 && left.length > 0; i++) {
      await sleep(50);
      left = processesWith(marker);
    }
    if (left.length > 0)
      survivors.push(`killed after ${delayMs} ms: ${left.map(describeProcess).join("; ")}`);
    for (const pid of left) process.kill(pid, "SIGKILL");
  }
  assert.deepEqual(survivors, [], "sandboxed processes outlived nex");
});

test("a job that prints the key (from .env) leaves it in no log, notice, request or --json line", {
  timeout: 120_000,
}, async () => {
  const key = "sk-proj-Jb2vN3xW7kR2mP5tY9bL4cF6hJ1gD0sA3eU8iO7";
  const box = makeSandbox();
  writeFileSync(join(box.workspace, ".env"), `OPENAI_API_KEY=${key}\n`);
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({
        name: "bash",
        args: { command: "for i in 1 2 3; do cat .env; sleep 0.3; done", background: true },
      }),
      openaiToolCall({ name: "bash", args: { command: "sleep 2" } }),
      openaiToolCall({ name: "jobs", args: { action: "output", id: 1 } }),
      openaiText("done"),
    ],
  });
  const args = ["run", "--yes", "--json", "--model", "m", "--base-url", `${stub.url}/v1`];
  const result = await startNex([...args, "--data-dir", box.dataDir, "go"], {
    cwd: box.workspace,
    env: { ...box.env, OPENAI_API_KEY: key },
  }).done;
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const sent = stub
    .requestsTo("/v1/chat/completions")
    .map((r) => r.rawBody)
    .join("\n");
  assert.ok(sent.includes("[redacted: OPENAI_API_KEY]"), "the model saw the key's name");
  assert.ok(!sent.includes(key), "a request holds the key");
  assert.ok(
    !result.stdout.includes(key) && !result.stderr.includes(key),
    "the output holds the key",
  );
  for (const file of filesUnder(box.dataDir))
    assert.ok(!file.text.includes(key), `${file.path} holds the key`);
});

function filesUnder(dir: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push({ path, text: readFileSync(path, "latin1") });
  }
  return out;
}
