// Nothing the chat prints is wider than the terminal, so the terminal never breaks a word and Ink's
// erasing of the live region never leaves a row behind (a stray prompt border in the scrollback).
// Read as a user sees it: the terminal emulator's own record of the rows it had to wrap.
import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import { textWidth } from "../../src/tui/fit.ts";
import { keys } from "../support/pty.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { type NexTui, startNexTui } from "./cli-harness.ts";
import { saveCapture } from "./save-capture.ts";
import { answerPrompt, waitForRedrawAt } from "./tui-harness.ts";

const longOutput =
  "touch built.txt && echo so the build reaches the end of a very long line that goes on and on and on beyond the edge of any terminal window and further still, past the right edge of a wide one as well";
const longPrompt =
  "please run the build script in the workspace and tell me whether the build reaches the end of its long run without an error";

/** A first prompt that wraps in the box, whose turn opens with a permission question. */
async function approvalTurn(t: TestContext, cols: number, rows: number): Promise<NexTui> {
  const nex = await startNexTui(
    [openaiToolCall({ name: "bash", args: { command: longOutput } }), openaiText("Done.")],
    { cols, rows },
  );
  t.after(() => nex.close());
  nex.pty.write(longPrompt);
  await nex.pty.waitFor("an error");
  nex.pty.write(keys.enter);
  await nex.pty.waitFor("Allow bash?");
  await answerPrompt(nex.pty, "y");
  await nex.pty.waitFor("Done.");
  await nex.pty.waitFor("Ask nex");
  await nex.pty.settle(300);
  return nex;
}

/** Every check a reader of the scrollback makes: no row wrapped by the terminal, none too wide. */
function assertFits(history: string, wraps: string[], cols: number): void {
  assert.deepEqual(wraps, [], "no line the terminal had to wrap");
  const wide = history.split("\n").filter((line) => textWidth(line) > cols);
  assert.deepEqual(wide, [], "no row wider than the terminal");
}

/** The rows that are a prompt box's top border (the chat's or a permission prompt's). */
function boxTops(history: string): string[] {
  return history.split("\n").filter((line) => /^╭─+╮$/.test(line.trim()));
}

for (const [cols, rows] of [
  [120, 40],
  [80, 30],
] as const) {
  test(`at ${cols}x${rows} a turn opening with a permission question leaves no stray border and no line wider than the terminal`, async (t) => {
    const nex = await approvalTurn(t, cols, rows);
    const history = nex.pty.history();
    saveCapture(`approval-scrollback-${cols}x${rows}`, history);
    t.diagnostic(history);
    assertFits(history, nex.pty.terminalWraps(), cols);
    assert.equal(boxTops(history).length, 1, "one box border: the prompt's, no leftover");
    assert.match(history, /^ {4}so the build reaches the end/m, "the output line under its call");
  });
}

test("a narrowing resize reprints the chat readable: no word broken, every entry once", async (t) => {
  const nex = await approvalTurn(t, 120, 40);
  nex.pty.resize(100, 40);
  nex.pty.resize(80, 30);
  await waitForRedrawAt(nex.pty, 80);
  const history = nex.pty.history();
  saveCapture("resize-120-to-80", history);
  t.diagnostic(history);
  assertFits(history, nex.pty.terminalWraps(), 80);
  assert.equal(boxTops(history).length, 1, "one prompt box");
  assert.equal(history.match(/^› please run the build/gm)?.length, 1, "the prompt once");
  assert.equal(history.match(/^Done\.$/gm)?.length, 1, "the answer once");
});
