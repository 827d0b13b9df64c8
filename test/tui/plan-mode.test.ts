// Plan mode in the real chat: shown in the status bar, reached with --mode plan or Shift+Tab, every
// change the model tries refused with words that tell it to plan, and the user's own `!command`
// still runs (unasked in any mode, sandboxed and snapshotted).
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { keys } from "../support/pty.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";
import { saveCapture } from "./save-capture.ts";

const idle = (screen: string) => screen.includes("Ask nex");

test("--mode plan at 120×40: the status bar says read-only, an edit is refused and the model is told to plan", async (t) => {
  const nex = await startNexTui(
    [
      openaiToolCall({ name: "read_file", args: { path: "notes.txt" } }),
      openaiToolCall({ name: "write_file", args: { path: "notes.txt", content: "replaced\n" } }),
      openaiText("Plan: replace the first line of notes.txt."),
    ],
    { args: ["--mode", "plan"], cols: 120, rows: 40, files: { "notes.txt": "first\n" } },
  );
  t.after(() => nex.close());
  await nex.pty.waitFor("plan: read-only");
  nex.pty.write(`fix the notes${keys.enter}`);
  await nex.pty.waitFor("Plan: replace the first line");
  const screen = await nex.pty.waitUntil(idle, "the prompt back");
  saveCapture("plan-mode-120x40", screen);
  assert.doesNotMatch(screen, /Allow write_file\?/, "nothing asked: refused outright");
  assert.match(screen, /plan mode/);
  assert.match(screen, /plan: read-only/);
  assert.equal(readFileSync(join(nex.workspace, "notes.txt"), "utf8"), "first\n");
  assert.match(
    nex.chatRequests()[0]?.rawBody ?? "",
    /fix the notes\\n\\n\[nex\] Plan mode is on: read and search/,
    "the prompt itself says plan mode is on",
  );
  const third = nex.chatRequests()[2]?.rawBody ?? "";
  assert.match(third, /nex is in plan mode \(read-only\)/);
  assert.match(third, /answer with your plan/);
});

test("at 80×30 Shift+Tab reaches plan mode; a changing command is refused, the user's own !command runs unasked", async (t) => {
  const nex = await startNexTui(
    [
      openaiToolCall({ name: "bash", args: { command: "rm notes.txt" } }),
      openaiText("I would remove notes.txt."),
    ],
    { args: ["--yes"], cols: 80, rows: 30, files: { "notes.txt": "keep\n" } },
  );
  t.after(() => nex.close());
  nex.pty.write(keys.shiftTab);
  await nex.pty.waitFor("plan: read-only");
  nex.pty.write(`clean up${keys.enter}`);
  await nex.pty.waitFor("I would remove notes.txt.");
  saveCapture("plan-mode-80x30", await nex.pty.waitUntil(idle, "the prompt back"));
  assert.ok(existsSync(join(nex.workspace, "notes.txt")), "the model's rm did not run");
  assert.match(
    nex.chatRequests()[1]?.rawBody ?? "",
    /`rm notes.txt` was not run: nex is in plan mode/,
  );
  nex.pty.write(`!touch made-by-user${keys.enter}`);
  await nex.pty.waitUntil(
    () => existsSync(join(nex.workspace, "made-by-user")),
    "the user's command ran",
  );
  assert.doesNotMatch(nex.pty.history(), /Allow bash\?/);
});

test("in ask mode a command the user typed with ! runs without a question", async (t) => {
  const nex = await startNexTui([], { cols: 80, rows: 30 });
  t.after(() => nex.close());
  nex.pty.write(`!touch typed-file && echo made-$((40+2))${keys.enter}`);
  await nex.pty.waitFor("made-42");
  assert.ok(existsSync(join(nex.workspace, "typed-file")));
  assert.doesNotMatch(nex.pty.history(), /Allow bash\?/);
});
