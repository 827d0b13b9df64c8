import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { sandbox } from "./helpers.ts";

const writer = join(import.meta.dirname, "fixtures", "slow-writer.ts");
const SIZE = 4 * 1024 * 1024;

function startWriter(target: string, pause: boolean) {
  const child = spawn(process.execPath, [writer, target, String(SIZE), pause ? "pause" : ""], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const said = (word: string): Promise<void> =>
    new Promise((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes(word)) resolve();
      });
      child.on("exit", (code) =>
        reject(new Error(`writer exited (${code}) before saying ${word}`)),
      );
    });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return { child, said, exited };
}

test("a write killed with SIGKILL mid-write leaves the old content byte-identical and no file posing as the target", async () => {
  const box = sandbox();
  const target = box.path("data.bin");
  const old = Buffer.from("the user's precious original content\n".repeat(1000));
  writeFileSync(target, old);
  const { child, said, exited } = startWriter(target, true);
  await said("ready");
  child.kill("SIGKILL");
  await exited;
  const after = readFileSync(target);
  assert.ok(after.equals(old), `target changed: ${after.length} bytes`);
  const others = readdirSync(box.workspace).filter((name) => name !== "data.bin");
  for (const name of others)
    assert.match(
      name,
      /^\.data\.bin\.nex-[0-9a-f]+\.tmp$/,
      "only a hidden temporary file may remain",
    );
  assert.ok(others.length <= 1);
});

test("a write that runs to the end leaves the complete new content, never a mix", async () => {
  const box = sandbox();
  const target = box.path("data.bin");
  writeFileSync(target, "old");
  const { said, exited } = startWriter(target, false);
  await said("done");
  await exited;
  const after = readFileSync(target);
  assert.equal(after.length, SIZE);
  assert.ok(after.equals(Buffer.alloc(SIZE, "N")));
  assert.deepEqual(readdirSync(box.workspace), ["data.bin"]);
});
