// The chat tells a terminal in the background that a long task ended: the real `nex chat` in a
// pseudo-terminal, the terminal's focus reports sent as a terminal sends them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { notifySequence } from "../../src/tui/terminal-notify.ts";
import { keys } from "../support/pty.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";
import { idleShown } from "./tui-harness.ts";

// The sequence as bytes: ESC ] 9 ; text BEL.
const OSC9 = new RegExp(`${"\x1b"}\\]9;nex: task finished after \\d+ s${"\x07"}`, "g");

test("nex chat: a long task's end is notified (OSC 9 on iTerm2), not while the terminal has focus, again once it lost it", async (t) => {
  const nex = await startNexTui(
    [openaiText("First."), openaiText("Second."), openaiText("Third.")],
    {
      // Every task counts as long here, so the test needs no slow turn.
      config: { notifications: { mode: "auto", afterSeconds: 0 } },
      env: { TERM_PROGRAM: "iTerm.app" },
    },
  );
  t.after(() => nex.close());
  assert.ok(nex.pty.output().includes("\x1b[?1004h"), "the terminal is asked to report focus");

  // No report yet: focus unknown, so the end of a long task is told.
  nex.pty.write(`one${keys.enter}`);
  await nex.pty.waitFor("First.");
  await nex.pty.waitUntil(
    () => (nex.pty.output().match(OSC9) ?? []).length === 1,
    "a notification",
  );

  // The terminal has focus: the user sees the answer, nothing is sent; the report is not typed text.
  nex.pty.write("\x1b[I");
  nex.pty.write(`two${keys.enter}`);
  await nex.pty.waitFor("Second.");
  assert.doesNotMatch(nex.pty.history(), /\[Itwo/, "the focus report did not reach the prompt");
  // The second task over (while focused) before the focus goes.
  await nex.pty.waitUntil(idleShown, "the second task over");

  // In the background again: told. The second task's end, had it been told, came before the third's
  // answer: once the third's notification is out, every one the three tasks sent is in the output.
  nex.pty.write("\x1b[O");
  nex.pty.write(`three${keys.enter}`);
  await nex.pty.waitFor("Third.");
  const count = (text: string) => (text.match(OSC9) ?? []).length;
  await nex.pty.waitUntil(() => {
    const output = nex.pty.output();
    return count(output.slice(output.indexOf("Third."))) > 0;
  }, "the third task's notification");
  assert.equal(count(nex.pty.output()), 2, "the first and the third: none while focused");
});

test("nex chat: a permission asked while the terminal is in the background is notified with what is asked", async (t) => {
  const nex = await startNexTui(
    [
      openaiToolCall({ name: "write_file", args: { path: "new.txt", content: "hi\n" } }),
      openaiText("Wrote it."),
    ],
    { env: { TERM_PROGRAM: "WezTerm" } },
  );
  t.after(() => nex.close());
  nex.pty.write("\x1b[O");
  nex.pty.write(`write new.txt${keys.enter}`);
  await nex.pty.waitFor("Allow write_file?");
  await nex.pty.waitUntil(
    () => nex.pty.output().includes("\x1b]9;nex: needs your permission: write_file new.txt"),
    "a permission notification",
  );
});

test("the notification is the terminal's own where TERM_PROGRAM says it has one, else the bell; its text cannot end the sequence", () => {
  const osc9 = notifySequence("auto", { TERM_PROGRAM: "WezTerm" });
  assert.equal(osc9?.("nex", "done\x07\x1b]0;pwned"), "\x1b]9;nex: done ]0;pwned\x07");
  const osc777 = notifySequence("auto", { VTE_VERSION: "7600" });
  assert.equal(osc777?.("n;ex", "needs you"), "\x1b]777;notify;n,ex;needs you\x07");
  assert.equal(notifySequence("auto", { TERM_PROGRAM: "Apple_Terminal" })?.("nex", "x"), "\x07");
  assert.equal(notifySequence("bell", { TERM_PROGRAM: "iTerm.app" })?.("nex", "x"), "\x07");
  assert.equal(notifySequence("off", { TERM_PROGRAM: "iTerm.app" }), null);
});
