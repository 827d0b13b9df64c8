// A child agent in the real `nex chat` (pseudo-terminal, stub endpoint): its steps show as compact
// lines marked with the child, and its calls are asked of the user like the parent's.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { openaiText, openaiToolCall, openaiToolCalls } from "../support/stub-endpoint.ts";
import { startNexTui } from "./cli-harness.ts";
import { answerPrompt, idleShown, saveScreen, typeAndSubmit } from "./tui-harness.ts";

test("nex chat: a work child's write is asked of the user, and its steps show marked with the child", async (t) => {
  const nex = await startNexTui([
    openaiToolCall({ name: "delegate", args: { task: "create new.txt", mode: "work" } }),
    openaiToolCall({ name: "write_file", args: { path: "new.txt", content: "from the child\n" } }),
    openaiText("Child: created new.txt."),
    openaiText("Parent: the child made new.txt."),
  ]);
  t.after(() => nex.close());
  await typeAndSubmit(nex.pty, "make the file through a child");
  await nex.pty.waitFor("Allow write_file?");
  await answerPrompt(nex.pty, "y");
  await nex.pty.waitFor("Parent: the child made new.txt.");
  const screen = await nex.pty.waitUntil(idleShown, "idle prompt");
  t.diagnostic(`final screen (${saveScreen(nex.dir, "subagent", screen)}):\n${screen}`);
  assert.equal(readFileSync(join(nex.workspace, "new.txt"), "utf8"), "from the child\n");
  // The child is one block, under the parent's delegate call: its steps counted, Ctrl-O for them all.
  assert.match(
    screen,
    /● delegate create new\.txt[\s\S]*agent-1 work: 2 steps · Ctrl-O shows them/,
  );
  nex.pty.write("\x0f"); // Ctrl-O
  const expanded = await nex.pty.waitFor("agent-1 work, every step:");
  assert.match(expanded, /1\. write_file new\.txt\n2\. finished in 2 turn\(s\)/);
  // The asked call's block is closed by its outcome, not left waiting for an approval.
  assert.doesNotMatch(screen, /not run: the turn ended before it was approved/);
});

test("nex chat: two children at once show as two blocks, each under its own call, within a 60-column terminal", async (t) => {
  const nex = await startNexTui(
    [
      openaiToolCalls([
        { name: "delegate", args: { task: "look at the docs", mode: "explore" }, id: "d1" },
        { name: "delegate", args: { task: "look at the tests", mode: "explore" }, id: "d2" },
      ]),
      // Each child answers in one request, in whichever order they ask.
      openaiText("Child: seen."),
      openaiText("Child: seen."),
      openaiText("Parent: both looked."),
    ],
    { cols: 60, rows: 40 },
  );
  t.after(() => nex.close());
  await typeAndSubmit(nex.pty, "look at both through children");
  await nex.pty.waitFor("Parent: both looked.");
  const screen = await nex.pty.waitUntil(idleShown, "idle prompt");
  assert.match(screen, /● delegate look at the docs[\s\S]*agent-\d explore: 1 step · Ctrl-O/);
  assert.match(screen, /● delegate look at the tests[\s\S]*agent-\d explore: 1 step · Ctrl-O/);
  for (const line of screen.split("\n"))
    assert.ok([...line].length <= 60, `a line wider than the terminal: ${line}`);
});
