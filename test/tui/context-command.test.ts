// `/context` in the real chat: what fills the window, by part, with the largest result named, at
// both sizes, every row whole on the screen.
import assert from "node:assert/strict";
import { test } from "node:test";
import { keys } from "../support/pty.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";

const idle = (screen: string) => screen.includes("Ask nex");

for (const [cols, rows] of [
  [120, 40],
  [80, 30],
] as const) {
  test(`/context at ${cols}×${rows} sizes the system prompt, tools, messages and results`, async (t) => {
    const nex = await startNexTui(
      [openaiToolCall({ name: "read_file", args: { path: "big.txt" } }), openaiText("Read it.")],
      { cols, rows, files: { "big.txt": `${"lorem ipsum dolor sit amet\n".repeat(400)}` } },
    );
    t.after(() => nex.close());
    nex.pty.write(`read big.txt${keys.enter}`);
    await nex.pty.waitFor("Read it.");
    await nex.pty.waitUntil(idle, "the prompt back");
    nex.pty.write(`/context${keys.enter}`);
    await nex.pty.waitFor("/compact summarises");
    const screen = await nex.pty.waitUntil(idle, "the prompt back");
    t.diagnostic(screen);
    assert.match(screen, /^Context: about [\d,]+ of 32,768 tokens \(\d+% of the window\)\.$/m);
    assert.match(screen, /^ {2}system prompt \(with instruction files\)\s+[\d,]+\s+\d+%$/m);
    assert.match(screen, /^ {2}tool definitions \(\d+ tools\)\s+[\d,]+\s+\d+%$/m);
    assert.match(screen, /^ {2}tool results \(1 result\)\s+[\d,]+\s+\d+%$/m);
    assert.match(screen, /^ {2}free \(the answer and what follows\)\s+[\d,]+\s+\d+%$/m);
    assert.match(screen, /^\s+[\d,]+\s+read_file \{"path":"big\.txt"\}$/m);
  });
}
