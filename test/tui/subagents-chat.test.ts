// A child agent in the real `nex chat` (pseudo-terminal, stub endpoint): its steps show as compact
// lines marked with the child, and its calls are asked of the user like the parent's.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { openaiText, openaiToolCall } from "../support/stub-endpoint.ts";
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
  assert.match(screen, /\[agent-1 work\] write_file new\.txt/);
  assert.match(screen, /\[agent-1 work\] finished in 2 turn\(s\)/);
  // The asked call's block is closed by its outcome, not left waiting for an approval.
  assert.doesNotMatch(screen, /not run: the turn ended before it was approved/);
});
