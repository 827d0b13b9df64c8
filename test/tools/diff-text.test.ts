import assert from "node:assert/strict";
import { test } from "node:test";
import { createTwoFilesPatch } from "diff";
import fc from "fast-check";
import { shortDiff } from "../../src/tools/files/diff-text.ts";

/** What the diff library itself gives, cut the same way. */
function reference(display: string, before: string, after: string, maxLines: number): string {
  const patch = createTwoFilesPatch(
    `a/${display}`,
    `b/${display}`,
    before,
    after,
    undefined,
    undefined,
    {
      context: 2,
    },
  );
  const lines = patch.split("\n").filter((l) => !l.startsWith("=====") && !l.startsWith("Index:"));
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  if (lines.length <= maxLines) return lines.join("\n");
  return `${lines.slice(0, maxLines).join("\n")}\n… (${lines.length - maxLines} more diff lines)`;
}

const text = fc
  .tuple(
    fc.array(fc.oneof(fc.string(), fc.constantFrom("", "\r", "\n", "\r\n", "naïve ✓")), {
      maxLength: 80,
    }),
    fc.constantFrom("\n", "", "\r\n"),
  )
  .map(([parts, separator]) => parts.join(separator));

test("the diff shown for a new file is the diff library's, line for line, also when cut", async () => {
  await fc.assert(
    fc.asyncProperty(text, fc.integer({ min: 1, max: 80 }), async (after, maxLines) => {
      assert.equal(
        await shortDiff("dir/f.txt", "", after, maxLines),
        reference("dir/f.txt", "", after, maxLines),
      );
    }),
  );
});

test("the diff shown for a changed file comes from the diff library", async () => {
  const before = "one\ntwo\nthree\n";
  const after = "one\n2\nthree\n";
  assert.equal(await shortDiff("a.txt", before, after), reference("a.txt", before, after, 60));
  assert.match(await shortDiff("a.txt", before, after), /^-two\n\+2$/m);
});

test("a change of more lines than the diff searches for is shown as one hunk over the changed region, at once", async () => {
  // Every other line of 3000 changes: the minimal diff would take seconds per megabyte; one hunk is linear.
  const lines = Array.from({ length: 3000 }, (_, i) => `line ${i} 世界`);
  const before = `head\n${lines.join("\n")}\ntail\n`;
  const after = `head\n${lines.map((l, i) => (i % 2 === 0 ? `${l} changed` : l)).join("\n")}\ntail\n`;
  const diff = await shortDiff("big.txt", before, after, 6);
  assert.equal(
    diff,
    [
      "--- a/big.txt",
      "+++ b/big.txt",
      "@@ -2,2999 +2,2999 @@",
      "-line 0 世界",
      "-line 1 世界",
      "-line 2 世界",
      "… (5995 more diff lines)",
    ].join("\n"),
  );
});
