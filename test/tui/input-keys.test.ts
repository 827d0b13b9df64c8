// Keys as a user presses them, in the real chat in a real pseudo-terminal: control keys that arrive
// in the same read as text act as keys, "Esc then Enter" steers when pressed one after the other,
// the prompt says what Enter and Esc will do, and Ctrl-O is about the command that is running.
import assert from "node:assert/strict";
import { test } from "node:test";
import { keys } from "../support/pty.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";
import { answerPrompt, idleShown } from "./tui-harness.ts";

/** The prompt box's first text row, as shown. */
function promptRow(screen: string): string {
  return screen.split("\n").find((line) => /^│ › /.test(line)) ?? "";
}

for (const [cols, rows] of [
  [120, 40],
  [80, 30],
] as const) {
  test(`at ${cols}x${rows} Ctrl-U and text in one read clear the line, then type`, async (t) => {
    const nex = await startNexTui([], { cols, rows });
    t.after(() => nex.close());
    nex.pty.write("hello there");
    await nex.pty.waitFor("hello there");
    nex.pty.write("\x15/mode");
    const screen = await nex.pty.waitUntil((s) => promptRow(s).includes("/mode"), "/mode typed");
    assert.match(promptRow(screen), /^│ › \/mode\s*│$/, "only /mode, no control character");
    nex.pty.write(keys.enter);
    await nex.pty.waitFor("Permission mode: auto_edit");
  });
}

test("three Up presses in one read walk three prompts back; a resize keeps the walk", async (t) => {
  const nex = await startNexTui([openaiText("A1."), openaiText("A2."), openaiText("A3.")], {
    cols: 120,
    rows: 40,
  });
  t.after(() => nex.close());
  for (const [prompt, answer] of [
    ["first prompt", "A1."],
    ["second prompt", "A2."],
    ["third prompt", "A3."],
  ] as const) {
    nex.pty.write(`${prompt}${keys.enter}`);
    await nex.pty.waitFor(answer);
    await nex.pty.waitUntil(idleShown, "idle");
  }
  nex.pty.write(keys.up + keys.up + keys.up);
  await nex.pty.waitUntil((s) => promptRow(s).includes("first prompt"), "the first prompt back");
  nex.pty.resize(80, 30);
  nex.pty.write(keys.down);
  await nex.pty.waitUntil((s) => promptRow(s).includes("second prompt"), "the second prompt");
});

test("Esc then Enter, pressed one after the other, steers the running turn instead of interrupting it", async (t) => {
  const nex = await startNexTui(
    [openaiText(`Working on it. ${"More words. ".repeat(60)}END-OF-ANSWER`, { delayMs: 40 })],
    { cols: 80, rows: 30 },
  );
  t.after(() => nex.close());
  nex.pty.write(`start${keys.enter}`);
  await nex.pty.waitFor("Working on it.");
  nex.pty.write("use the other file");
  const typed = await nex.pty.waitFor("use the other file");
  assert.match(typed, /Enter: queue for the next tool result · Esc then Enter: steer/);
  nex.pty.write(keys.esc);
  await nex.pty.waitFor("Enter: send as a steering note now");
  nex.pty.write(keys.enter);
  await nex.pty.waitFor("steer › use the other file");
  await nex.pty.waitFor("END-OF-ANSWER");
  assert.doesNotMatch(nex.pty.history(), /interrupted/i, "the turn ran to its end");
});

test("Ctrl-O while a command runs shows that command, not the previous one", async (t) => {
  const nex = await startNexTui(
    [
      openaiToolCall({ name: "bash", args: { command: "echo PREVIOUS-OUTPUT" } }),
      openaiText("First done."),
      openaiToolCall({
        name: "bash",
        args: { command: "for i in 1 2 3 4 5 6 7 8; do echo tick$i; sleep 1; done; touch t.txt" },
      }),
      openaiText("Second done."),
    ],
    { cols: 100, rows: 40 },
  );
  t.after(() => nex.close());
  nex.pty.write(`first${keys.enter}`);
  await nex.pty.waitFor("First done.");
  await nex.pty.waitUntil(idleShown, "idle");
  nex.pty.write(`second${keys.enter}`);
  await nex.pty.waitFor("Allow bash?");
  await answerPrompt(nex.pty, "y");
  await nex.pty.waitFor("tick1");
  nex.pty.write("\x0f");
  const shown = await nex.pty.waitFor("Ctrl-O once it ends shows its whole output.");
  assert.match(shown, /^\$ for i in 1 2 3/m, "the running command");
  assert.match(shown, /running: /);
  const history = nex.pty.history();
  const sinceSecond = history.slice(history.lastIndexOf("› second"));
  assert.doesNotMatch(sinceSecond, /\$ echo PREVIOUS-OUTPUT/, "not the previous command's output");
  await nex.pty.waitFor("Second done.");
});
