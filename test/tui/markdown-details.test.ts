// Markdown answers as a user reads them in the real chat: task boxes once, paragraphs that flow,
// nested lists indented, long code lines continued under the block, a CJK item beside its bullet.
// At 120x40, at 80x30, and after a narrowing resize; nothing wider than the terminal.
import assert from "node:assert/strict";
import { test } from "node:test";
import { textWidth } from "../../src/tui/fit.ts";
import { keys } from "../support/pty.ts";
import { openaiText } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";
import { idleShown, waitForRedrawAt } from "./tui-harness.ts";

const cjk = "这是一个很长的中文列表项用来测试换行时项目符号是否会单独留在一行上面的问题".repeat(3);
const answer = [
  "Plan:",
  "",
  "- [x] read the notes",
  "- [ ] write the fix",
  "",
  "This paragraph was sent with soft line breaks by the model at its own width, which is wider",
  "than a narrow terminal, so each of its lines would wrap into a long row and a short one",
  "unless the paragraph flows to the terminal's width as one paragraph.",
  "",
  "1. outer item",
  "   - inner item",
  "     - innermost item",
  "2. second outer",
  "",
  "```js",
  `const line = "${"x".repeat(150)}";`,
  "```",
  "",
  `- ${cjk}`,
  "",
  "END-OF-ANSWER",
].join("\n");

function checkScreen(history: string, wraps: string[], cols: number): void {
  assert.deepEqual(wraps, [], "no line the terminal had to wrap");
  const wide = history.split("\n").filter((row) => textWidth(row) > cols);
  assert.deepEqual(wide, [], `no row wider than ${cols} columns`);
  assert.match(history, /^ {2}\* \[x\] read the notes$/m, "a done task, its box once");
  assert.match(history, /^ {2}\* \[ \] write the fix$/m, "an open task, its box once");
  assert.match(
    history,
    /This paragraph was sent with soft line breaks by the model/,
    "soft breaks flow",
  );
  assert.match(
    history,
    /^ {2}1\. outer item\n {5}\* inner item\n {7}\* innermost item\n {2}2\. second outer$/m,
  );
  assert.match(
    history,
    /^ {2}↪ x+";$/m,
    "the code line continues under the block, not at column 0",
  );
  assert.doesNotMatch(history, /^ *\*\s*$/m, "no bullet alone on its row");
  assert.match(history, /^ {2}\* 这是/m, "the CJK item starts beside its bullet");
  assert.match(history, /^ {4}\S*问题/m, "its continuation rows are indented under its text");
}

for (const [cols, rows] of [
  [120, 40],
  [80, 30],
] as const) {
  test(`at ${cols}x${rows} markdown lists, paragraphs and code read right`, async (t) => {
    const nex = await startNexTui([openaiText(answer)], { cols, rows });
    t.after(() => nex.close());
    nex.pty.write(`show me${keys.enter}`);
    await nex.pty.waitFor("END-OF-ANSWER");
    await nex.pty.waitUntil(idleShown, "idle");
    await nex.pty.settle(300);
    const history = nex.pty.history();
    t.diagnostic(history);
    checkScreen(history, nex.pty.terminalWraps(), cols);
    if (cols === 120) {
      nex.pty.resize(80, 30);
      await waitForRedrawAt(nex.pty, 80);
      checkScreen(nex.pty.history(), nex.pty.terminalWraps(), 80);
    }
  });
}
