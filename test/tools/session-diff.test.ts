// `/diff`'s text from undo's snapshots: each file the session changed against its content before the
// session's first change to it; a binary file and one written back to its old bytes are handled.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { test } from "node:test";
import { host, run, sandbox } from "./helpers.ts";

test("a file written twice is diffed against the content before the first change; one put back is not listed", async () => {
  const box = sandbox();
  writeFileSync(box.path("a.txt"), "one\ntwo\nthree\n");
  writeFileSync(box.path("same.txt"), "keep\n");
  const tools = host(box, { mode: "approve_all" });
  await run(tools, "read_file", { path: "a.txt" }, { turn: 1 });
  await run(tools, "write_file", { path: "a.txt", content: "one\nTWO\nthree\n" }, { turn: 1 });
  await run(tools, "read_file", { path: "a.txt" }, { turn: 2 });
  await run(
    tools,
    "write_file",
    { path: "a.txt", content: "one\nTWO\nthree\nfour\n" },
    { turn: 2 },
  );
  await run(
    tools,
    "bash",
    { command: "printf 'x\\n' > same.txt && printf 'keep\\n' > same.txt" },
    { turn: 3 },
  );
  const text = await tools.sessionDiff();
  assert.match(text, /^1 file changed in this session/);
  assert.match(text, /^a\.txt \(changed\)\n--- a\/a\.txt\n\+\+\+ b\/a\.txt\n@@ /m);
  assert.match(text, /^-two$/m);
  assert.match(text, /^\+TWO$/m);
  assert.match(text, /^\+four$/m);
  assert.doesNotMatch(text, /same\.txt/);
});

test("a binary file is named with its sizes, not diffed", async () => {
  const box = sandbox();
  const tools = host(box, { mode: "approve_all" });
  await run(tools, "bash", { command: "printf 'a\\000b' > blob.bin" }, { turn: 1 });
  const text = await tools.sessionDiff();
  assert.match(text, /^blob\.bin \(created\): before: absent; now: binary, 3 bytes$/m);
});

test("a session with no change says so", async () => {
  const tools = host(sandbox(), { mode: "approve_all" });
  assert.equal(await tools.sessionDiff(), "No file changes in this session yet.");
});

test("a file over 1 MiB is named with its size, never read whole", async () => {
  const box = sandbox();
  const tools = host(box, { mode: "approve_all" });
  await run(
    tools,
    "bash",
    { command: "head -c 1100000 /dev/zero | tr '\\0' x > big.txt" },
    { turn: 1 },
  );
  const text = await tools.sessionDiff();
  assert.match(
    text,
    /^big\.txt \(changed\?\): 1100000 bytes now, too large to compare or diff here$/m,
  );
});
