// The /proc scan that finds what a command left running: it reads each process's environment as
// bytes in a reused buffer, so a tag that lies past the buffer, or is cut by its end, must still be
// found, and a tag that only ends another variable's name must not.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { commandTag, findTagged } from "../../src/tools/shell/leftover-processes.ts";
import { until } from "../support/until.ts";

const BUFFER = 64 * 1024;

/** A detached `sleep` whose environment is `env` (in this order), and its end. */
function sleeper(env: Record<string, string>): { pid: number; stop: () => void } {
  const child = spawn("sleep", ["60"], { env, detached: true, stdio: "ignore" });
  child.unref();
  return { pid: child.pid as number, stop: () => child.kill("SIGKILL") };
}

/** Whether the scan finds `pid`, once the process has exec'd (before, /proc shows our environment). */
async function found(tag: ReturnType<typeof commandTag>, pid: number): Promise<boolean> {
  const command = () => readFileSync(`/proc/${pid}/cmdline`, "latin1");
  await until(() => command().startsWith("sleep\0"), `process ${pid} to exec sleep`);
  return (findTagged(tag) ?? []).some((p) => p.pid === pid);
}

test("a command's tag is found wherever it lies in the environment: first, past the buffer, or cut by its end", {
  skip: process.platform !== "linux" && "no /proc",
}, async () => {
  const tag = commandTag();
  const entry = `${tag.name}=${tag.value}\0`.length;
  // A filler variable `F=...\0` of these lengths puts the tag at the start of the second buffer,
  // across its end at every offset of a few, and well past it.
  const fillers = [0, 10, BUFFER - entry, BUFFER - entry + 1, BUFFER - 5, BUFFER - 1, 3 * BUFFER];
  for (const length of fillers) {
    // Variables of at most 32 KiB (one string may not exceed 128 KiB), `Fn=...\0` each.
    const env: Record<string, string> = {};
    for (let left = length, n = 0; left > 0; n++) {
      const size = Math.min(left, 32 * 1024);
      const name = `F${n}`;
      env[name] = "x".repeat(Math.max(0, size - name.length - 2));
      left -= Math.max(size, name.length + 2);
    }
    env[tag.name] = tag.value;
    const process = sleeper(env);
    try {
      assert.ok(await found(tag, process.pid), `tag after a ${length}-byte variable`);
    } finally {
      process.stop();
    }
  }
});

test("a variable whose name only ends in the tag's is not the tag", {
  skip: process.platform !== "linux" && "no /proc",
}, async () => {
  const tag = commandTag();
  const process = sleeper({ [`X${tag.name}`]: tag.value });
  try {
    // It must not be taken for the command's.
    assert.equal(await found(tag, process.pid), false);
  } finally {
    process.stop();
  }
});
