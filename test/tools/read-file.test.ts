import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, constants, openSync, truncateSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import { patienceMs } from "../support/until.ts";
import { host, run, sandbox } from "./helpers.ts";

test("read_file shows numbered lines and records a complete read with the content hash", async () => {
  const box = sandbox();
  writeFileSync(box.path("a.txt"), "alpha\nbeta\n");
  const out = await run(host(box), "read_file", { path: "a.txt" });
  assert.equal(out.isError, false);
  assert.equal(out.content, "a.txt (2 lines, 11 bytes):\n     1\talpha\n     2\tbeta");
  const record = out.ledger?.[0];
  assert.equal(record?.complete, true);
  assert.equal(record?.size, 11);
  assert.equal(record?.hash, createHash("sha256").update("alpha\nbeta\n").digest("hex"));
});

test("read_file with offset and limit shows a slice and says where to continue", async () => {
  const box = sandbox();
  writeFileSync(
    box.path("a.txt"),
    Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n"),
  );
  const out = await run(host(box), "read_file", { path: "a.txt", offset: 4, limit: 3 });
  assert.match(
    out.content,
    / {5}4\tline 4\n {5}5\tline 5\n {5}6\tline 6\n\(Showing lines 4-6 of 10\. Continue with offset 7\.\)$/,
  );
  assert.equal(out.ledger?.[0]?.complete, false);
});

test("read_file of a file longer than the output budget shows the first part and how to read on", async () => {
  const box = sandbox();
  writeFileSync(box.path("long.txt"), `${"a line of text that is long enough\n".repeat(5000)}`);
  const out = await run(host(box, { outputCap: 8 * 1024 }), "read_file", { path: "long.txt" });
  assert.equal(out.isError, false);
  assert.match(out.content, /\(Showing lines 1-\d+ of 5,000\. Continue with offset \d+\.\)$/);
  assert.equal(out.ledger?.[0]?.complete, false);
  assert.ok(Buffer.byteLength(out.content) <= 8 * 1024);
});

test("read_file of a binary file says it is binary and how to inspect it", async () => {
  const box = sandbox();
  writeFileSync(box.path("img.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1, 2, 3]));
  const out = await run(host(box), "read_file", { path: "img.png" });
  assert.equal(out.code, "binary");
  assert.match(out.content, /binary file \(10 bytes\)/);
  assert.match(out.content, /xxd/);
});

test("read_file of a missing file says so and how to find the right path", async () => {
  const out = await run(host(sandbox()), "read_file", { path: "nope.txt" });
  assert.equal(out.code, "not_found");
  assert.match(out.content, /glob or list_dir/);
});

test("read_file of an empty file is a complete read of 0 bytes", async () => {
  const box = sandbox();
  writeFileSync(box.path("e.txt"), "");
  const out = await run(host(box), "read_file", { path: "e.txt" });
  assert.equal(out.content, "e.txt is empty (0 bytes).");
  assert.equal(out.ledger?.[0]?.complete, true);
});

test("a very long line is cut in the view and the read does not count as complete", async () => {
  const box = sandbox();
  writeFileSync(box.path("min.js"), `${"x".repeat(5000)}\n`);
  const out = await run(host(box), "read_file", { path: "min.js" });
  assert.match(out.content, /line cut: 5,000 characters/);
  assert.equal(out.ledger?.[0]?.complete, false);
});

test("a ledger restored on resume lets the session replace a file it read before", async () => {
  const box = sandbox();
  writeFileSync(box.path("a.txt"), "known\n");
  const first = host(box);
  const read = await run(first, "read_file", { path: "a.txt" });
  const resumed = host(box, { ledger: read.ledger ?? [] });
  const out = await run(resumed, "write_file", { path: "a.txt", content: "changed\n" });
  assert.equal(out.isError, false, out.content);
  assert.deepEqual(
    resumed.ledger().map((r) => r.complete),
    [true],
  );
});

// Gives a reader stuck on the FIFO its end of file, so a regression fails the test instead of hanging the run.
function release(fifo: string): void {
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // nobody was waiting
  }
}

test("a FIFO is refused by read_file, write_file and edit_file at once, without opening it", async () => {
  const box = sandbox();
  const fifo = box.path("pipe");
  execFileSync("mkfifo", [fifo]);
  const tools = host(box, { mode: "approve_all" });
  const calls: Array<[string, Record<string, unknown>]> = [
    ["read_file", { path: "pipe" }],
    ["write_file", { path: "pipe", content: "x" }],
    ["edit_file", { path: "pipe", old_string: "a", new_string: "b" }],
  ];
  for (const [name, args] of calls) {
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<"hung">((resolve) => {
      // A bound for a hang only (an open of the FIFO waits forever), far past any loaded run.
      timer = setTimeout(() => resolve("hung"), patienceMs);
    });
    const out = await Promise.race([run(tools, name, args), hung]);
    clearTimeout(timer);
    if (out === "hung") release(fifo);
    assert.notEqual(out, "hung", `${name} waited on the FIFO`);
    if (out === "hung") continue;
    assert.equal(out.code, "failed", out.content);
    assert.match(out.content, /pipe is not a regular file/);
  }
});

test("a file over the read limit is refused from its size, before anything is read", async () => {
  const box = sandbox();
  // Sparse: costs no disk, and too big for Node to read into one buffer.
  writeFileSync(box.path("huge.log"), "");
  truncateSync(box.path("huge.log"), 3 * 2 ** 30);
  const out = await run(host(box), "read_file", { path: "huge.log" });
  assert.equal(out.code, "too_large", out.content);
  assert.match(out.content, /huge\.log is 3,221,225,472 bytes, over the .* read_file limit/);
});
