// Resizing the terminal while an answer streams: no broken frames and no duplicated text in the
// scrollback. A real terminal emulator reflows what it holds, as a terminal window does.
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { keys } from "../support/pty.ts";
import { openaiText } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";
import { spinnerShown } from "./tui-harness.ts";

for (const [from, to] of [
  [120, 60],
  [60, 120],
] as const) {
  test(`resizing from ${from} to ${to} columns mid-stream leaves every line once, in order`, async (t) => {
    const paragraphs = Array.from(
      { length: 60 },
      (_, i) => `Paragraph ${i + 1} says something about the plan.\n\n`,
    );
    const nex = await startNexTui(
      [openaiText(`${paragraphs.join("")}END-OF-ANSWER`, { chunkSize: 16, delayMs: 15 })],
      { cols: from, rows: 24 },
    );
    t.after(() => nex.close());
    nex.pty.write(`go${keys.enter}`);
    await nex.pty.waitFor("Paragraph 12 says");
    // A window being dragged: several sizes in a row, then the last one.
    const mid = Math.round((from + to) / 2);
    nex.pty.resize(mid, 24);
    await sleep(40);
    nex.pty.resize(to, 24);
    await sleep(300);
    nex.pty.resize(to, 20);
    await nex.pty.waitFor("END-OF-ANSWER");
    await nex.pty.waitUntil((s) => !spinnerShown(s), "spinner off");
    // The prompt comes back after the spinner stops; a loaded machine may draw it a moment later.
    await nex.pty.waitFor("Ask nex");
    await nex.pty.settle(300);
    const history = nex.pty.history();
    const seen = [...history.matchAll(/Paragraph (\d+) says something about the plan\./g)].map(
      (m) => Number(m[1]),
    );
    t.diagnostic(`paragraphs seen: ${seen.join(",")}`);
    assert.deepEqual(
      seen,
      Array.from({ length: 60 }, (_, i) => i + 1),
      "each paragraph once, in order",
    );
    assert.equal(history.match(/Ask nex/g)?.length ?? 0, 1, "one prompt box: no stale frame left");
    assert.doesNotMatch(history, /Esc interrupts/, "no frame of the streaming prompt left behind");
    assert.doesNotMatch(history, /waiting for \S+ at/, "no stale status bar left behind");
  });
}
