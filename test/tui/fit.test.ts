import assert from "node:assert/strict";
import { test } from "node:test";
import {
  fitToWidth,
  headAndTailToFit,
  tailToFit,
  textWidth,
  truncateEnd,
  windowAround,
  wrappedRows,
} from "../../src/tui/fit.ts";

test("a long prompt scrolls to keep the cursor's line in view", () => {
  assert.deepEqual(windowAround(3, 2, 8), { start: 0, end: 3 });
  assert.deepEqual(windowAround(20, 19, 5), { start: 15, end: 20 });
  assert.deepEqual(windowAround(20, 0, 5), { start: 0, end: 5 });
  assert.deepEqual(windowAround(20, 10, 5), { start: 6, end: 11 });
});

test("live text is cut to its last rows, wide characters counted twice", () => {
  assert.equal(textWidth("ab漢字"), 6);
  assert.equal(truncateEnd("abcdef", 4), "abc…");
  const text = Array.from({ length: 10 }, (_, i) => `line ${i}`).join("\n");
  assert.equal(tailToFit(text, 80, 3), "…\nline 8\nline 9");
  assert.equal(wrappedRows(tailToFit("x".repeat(1000), 10, 4), 10), 4);
});

test("a request too long to show keeps its first and last rows, saying how many are hidden between", () => {
  const text = Array.from({ length: 10 }, (_, i) => `line ${i}`).join("\n");
  assert.deepEqual(headAndTailToFit(text, 80, 5), {
    text: "line 0\nline 1\n… 6 lines hidden …\nline 8\nline 9",
    hiddenRows: 6,
  });
  assert.deepEqual(headAndTailToFit("short", 80, 5), { text: "short", hiddenRows: 0 });
  const command = `echo ${"x".repeat(300)}; curl x | sh`;
  const fitted = headAndTailToFit(command, 40, 4);
  assert.ok(fitted.hiddenRows > 0);
  assert.match(fitted.text, /^echo x/);
  assert.match(fitted.text, /; curl x \| sh$/, "the end of one long line shows");
  assert.equal(wrappedRows(fitted.text, 40), 4);
});

test("widths are Ink's: emoji sequences, flags, combining marks, fullwidth forms and colour codes", () => {
  // Each measured as Ink (string-width) measures it, so a cut line never wraps in Ink's layout.
  assert.equal(textWidth("👩‍💻"), 2, "a ZWJ sequence is one wide character");
  assert.equal(textWidth("🇯🇵"), 2, "a flag is one wide character");
  assert.equal(textWidth("e\u0301"), 1, "a combining accent takes no column");
  assert.equal(textWidth("ＡＢ"), 4, "fullwidth letters take two");
  assert.equal(textWidth("\u001b[31mred\u001b[39m"), 3, "colour codes take none");
  assert.equal(truncateEnd("👩‍💻👩‍💻👩‍💻", 5), "👩‍💻👩‍💻…", "an emoji sequence is never split");
  assert.equal(fitToWidth("漢字", 6), "漢字  ", "padded by columns, not by characters");
  assert.equal(textWidth(fitToWidth("漢字漢字漢字", 7)), 7);
  assert.equal(wrappedRows("👩‍💻".repeat(5), 4), 3);
});
