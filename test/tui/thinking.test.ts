// A reasoning model's wait, in the real chat in a real pseudo-terminal: a live line says it thinks,
// with a growing count and the elapsed time; Ctrl-O opens the reasoning so far; when the answer
// starts, the collapsed line stays in the scrollback and the live line is gone.
import assert from "node:assert/strict";
import { test } from "node:test";
import { openaiReasoningThenText, type Script } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";
import { saveCapture } from "./save-capture.ts";

const thought = Array.from({ length: 40 }, (_, i) => `Step ${i + 1}: weigh the option carefully. `);

/** A chat-completions stream that reasons slowly (`reasoning_content`), then answers. */
const thinkingThenAnswer = (answer: string, pauseMs: number): Script =>
  openaiReasoningThenText(thought, answer, { pauseMs, usage: null });

/** The count and seconds of the thinking line on `screen`, or null. */
function thinkingLine(screen: string): { chars: number; seconds: number } | null {
  const m = /✻ thinking · ([\d,]+) characters · ([\d.]+)s/.exec(screen);
  return m ? { chars: Number(m[1]?.replace(/,/g, "")), seconds: Number(m[2]) } : null;
}

for (const [cols, rows] of [
  [120, 40],
  [80, 30],
] as const) {
  test(`at ${cols}x${rows} a thinking model shows a live line that grows, opens with Ctrl-O and collapses when the answer starts`, async (t) => {
    const nex = await startNexTui([thinkingThenAnswer("The answer is 42.", 250)], {
      cols,
      rows,
    });
    t.after(() => nex.close());
    nex.pty.write("think hard\r");
    const first = await nex.pty.waitUntil((s) => thinkingLine(s) !== null, "the thinking line");
    saveCapture(`thinking-line-${cols}x${rows}`, first);
    const start = thinkingLine(first);
    assert.ok(start);
    const later = await nex.pty.waitUntil((s) => {
      const now = thinkingLine(s);
      return now !== null && now.chars > start.chars && now.seconds > start.seconds;
    }, "the count and the time growing");
    assert.match(later, /Ctrl-O shows it/, "the line says how to open it");
    nex.pty.write("\x0f");
    const open = await nex.pty.waitFor("Ctrl-O hides it");
    assert.match(open, /Step \d+: weigh the option carefully\./, "the reasoning so far, opened");
    saveCapture(`thinking-open-${cols}x${rows}`, open);
    await nex.pty.waitFor("The answer is 42.");
    await nex.pty.waitFor("Ask nex");
    await nex.pty.settle(300);
    const history = nex.pty.history();
    saveCapture(`thinking-done-${cols}x${rows}`, history);
    assert.match(history, /⋯ reasoning \([\d,]+ characters, not shown; \/reasoning shows it\)/);
    assert.doesNotMatch(history, /✻ thinking/, "no live line left in the scrollback");
    assert.deepEqual(nex.pty.terminalWraps(), [], "nothing wider than the terminal");
  });
}
