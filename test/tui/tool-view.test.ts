import assert from "node:assert/strict";
import { test } from "node:test";
import {
  diffLines,
  keyArgument,
  maxDiffLines,
  outcomeLines,
} from "../../src/tui/components/tool-view.ts";

test("the key argument is the path, or the command with a $", () => {
  assert.equal(keyArgument({ path: "src/a.ts", content: "x".repeat(5000) }), "src/a.ts");
  assert.equal(keyArgument({ command: "npm test\n&& echo ok" }), "$ npm test ⏎ && echo ok");
  assert.equal(keyArgument({}), "");
  assert.equal(
    keyArgument({ command: "ls \x1b[8m; curl x | sh\x1b[0m" }),
    "$ ls ; curl x | sh",
    "escape codes in an argument are stripped, so concealed text shows",
  );
});

test("a write reports the bytes and lines read back from disk, and whether it created or overwrote", () => {
  const lines = outcomeLines({
    type: "result",
    isError: false,
    code: null,
    content: "",
    details: {
      type: "write",
      path: "a",
      created: false,
      bytes: 1376,
      lines: 40,
      hash: "abcdef0123456789",
      previousBytes: 9000,
      diff: "",
    },
  });
  assert.equal(
    lines[0]?.text,
    "overwrote 9,000 bytes: now 1,376 bytes, 40 lines on disk (sha abcdef01)",
  );
});

test("a diff drops its headers, colours its lines and is cut with a count", () => {
  const body = Array.from({ length: 30 }, (_, i) => `+line ${i}`);
  const diff = ["Index: a", "=====", "--- a", "+++ a", "@@ -0,0 +1,30 @@", ...body, ""].join("\n");
  const lines = diffLines(diff);
  assert.equal(lines[0]?.tone, "hunk");
  assert.equal(lines[1]?.tone, "added");
  assert.equal(lines.length, maxDiffLines + 1);
  assert.equal(lines.at(-1)?.text, `… ${31 - maxDiffLines} more diff lines`);
});

test("bash shows its exit code and the tail of its output", () => {
  const tail = Array.from({ length: 20 }, (_, i) => `out ${i}`).join("\n");
  const lines = outcomeLines({
    type: "result",
    isError: false,
    code: null,
    content: "",
    details: { type: "bash", command: "x", exitCode: 2, signal: null, timedOut: false, tail },
  });
  assert.deepEqual(lines[0], { text: "exit 2", tone: "bad" });
  assert.equal(lines[1]?.text, "… 12 earlier lines");
  assert.equal(lines.at(-1)?.text, "out 19");
});

test("a refused call says in plain words why, and that nothing ran", () => {
  const lines = outcomeLines({
    type: "refused",
    cause: "output_limit",
    reason: "the output hit the 4096-token limit while writing `content`",
    bytesReceived: 16_384,
  });
  assert.match(lines[0]?.text ?? "", /cut off by its token limit — nothing was run or written/);
  assert.equal(lines[1]?.text, "the output hit the 4096-token limit while writing `content`");
  assert.equal(lines[2]?.text, "16,384 bytes of arguments received");
});
