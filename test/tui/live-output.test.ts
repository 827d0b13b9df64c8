// A running command's output shows live in the real chat: its last lines update before it ends, any
// control sequence it prints is neutralised, no line is wider than the terminal, and Ctrl-O shows
// the whole output of the last command afterwards.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { keys } from "../support/pty.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";
import { spinnerShown } from "./tui-harness.ts";

// Prints numbered lines (one with a terminal escape, one far too long), then waits for a file the
// test creates once it has seen the output live: no timing guess.
const command = [
  'for i in $(seq 1 40); do echo "step $i of the build"; done',
  "printf 'evil \\033[2J\\033]0;title\\007 done\\n'",
  "printf '%0300d\\n' 7",
  "while [ ! -f go ]; do sleep 0.05; done",
  "echo finished",
].join("; ");

test("a running command's output shows live, safely and within the width; Ctrl-O shows all of it after", async (t) => {
  const nex = await startNexTui(
    [openaiToolCall({ name: "bash", args: { command } }), openaiText("Built.")],
    { args: ["--yes"], cols: 60, rows: 30 },
  );
  t.after(() => nex.close());
  nex.pty.write(`build it${keys.enter}`);
  const live = await nex.pty.waitUntil(
    (s) => /running… 42 lines/.test(s) && /evil +done/.test(s),
    "the live output",
  );
  assert.doesNotMatch(live, /\]0;title/, "the escape sequence was neutralised");
  for (const line of live.split("\n"))
    assert.ok([...line].length <= 60, `a line wider than the terminal: ${line}`);
  writeFileSync(join(nex.workspace, "go"), "");
  await nex.pty.waitFor("Built.");
  await nex.pty.waitUntil((s) => !spinnerShown(s), "turn over");
  nex.pty.write("\x0f"); // Ctrl-O
  // The block kept the tail; the expansion has the lines before it too.
  const expanded = await nex.pty.waitFor("step 30 of the build");
  assert.match(expanded, /finished/);
});
