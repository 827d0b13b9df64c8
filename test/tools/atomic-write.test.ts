import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { atomicWrite, SYNC_WRITE_BYTES } from "../../src/tools/files/atomic-write.ts";
import { host, run, sandbox } from "./helpers.ts";

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

const failingDirSync = (): never => {
  throw Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" });
};

test("a directory sync that fails after the rename is reported, not thrown: the new content is in place (small and large writes)", async () => {
  const box = sandbox();
  for (const size of [10, SYNC_WRITE_BYTES + 1]) {
    const target = box.path(`f${size}.bin`);
    writeFileSync(target, "old");
    const bytes = Buffer.alloc(size, "n");
    const committed = await atomicWrite(target, bytes, { syncDir: failingDirSync });
    assert.match(committed.dirSyncError?.message ?? "", /EIO/);
    assert.ok(readFileSync(target).equals(bytes));
  }
});

test("after the rename, a failed directory sync never makes a file tool say nothing was changed", async () => {
  const box = sandbox();
  writeFileSync(box.path("w.txt"), "old\n");
  writeFileSync(box.path("e.txt"), "old\n");
  writeFileSync(box.path("p.txt"), "old\n");
  const tools = host(box, { afterRename: { syncDir: failingDirSync } });
  for (const name of ["w.txt", "e.txt", "p.txt"]) await run(tools, "read_file", { path: name });
  const outcomes = [
    await run(tools, "write_file", { path: "w.txt", content: "new\n" }),
    await run(tools, "edit_file", { path: "e.txt", old_string: "old", new_string: "new" }),
    await run(tools, "write_file", { path: "p.txt", content: "ne", part: 1, parts: 2 }),
    await run(tools, "write_file", { path: "p.txt", content: "w\n", part: 2, parts: 2 }),
  ];
  for (const out of [outcomes[0], outcomes[1], outcomes[3]]) {
    assert.ok(out);
    assert.equal(out.isError, false, out.content);
    assert.doesNotMatch(out.content, /nothing was (changed|written)/i);
    assert.match(out.content, /The file was replaced/);
    assert.match(out.content, /directory could not be flushed to disk \(EIO/);
  }
  for (const name of ["w.txt", "e.txt", "p.txt"])
    assert.equal(readFileSync(box.path(name), "utf8"), "new\n");
  // The ledger knows the new content: the next edit needs no re-read.
  const next = await run(tools, "edit_file", {
    path: "e.txt",
    old_string: "new",
    new_string: "newer",
  });
  assert.equal(next.isError, false, next.content);
});

test("after the rename, a failed read-back says the file was replaced and unconfirmed, and the model must read it again", async () => {
  const box = sandbox();
  writeFileSync(box.path("w.txt"), "old\n");
  writeFileSync(box.path("p.txt"), "old\n");
  const readBack = async (): Promise<Buffer> => {
    throw Object.assign(new Error("EACCES: permission denied, open"), { code: "EACCES" });
  };
  const tools = host(box, { afterRename: { readBack } });
  await run(tools, "read_file", { path: "w.txt" });
  await run(tools, "read_file", { path: "p.txt" });
  const outcomes = [
    await run(tools, "write_file", { path: "w.txt", content: "new\n" }),
    await run(tools, "write_file", { path: "p.txt", content: "ne", part: 1, parts: 2 }),
    await run(tools, "write_file", { path: "p.txt", content: "w\n", part: 2, parts: 2 }),
  ];
  for (const out of [outcomes[0], outcomes[2]]) {
    assert.ok(out);
    assert.equal(out.isError, false, out.content);
    assert.doesNotMatch(out.content, /nothing was (changed|written)/i);
    assert.match(out.content, /The file was replaced \(4 bytes written\)/);
    assert.match(out.content, /reading it back failed \(EACCES.*read it again before changing it/);
  }
  for (const name of ["w.txt", "p.txt"])
    assert.equal(readFileSync(box.path(name), "utf8"), "new\n");
  const next = await run(tools, "edit_file", {
    path: "w.txt",
    old_string: "new",
    new_string: "newer",
  });
  assert.equal(next.code, "stale_read", next.content);
  assert.equal(readFileSync(box.path("w.txt"), "utf8"), "new\n");
});
