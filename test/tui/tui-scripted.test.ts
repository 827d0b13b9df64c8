// The TUI in a real pseudo-terminal over a scripted AgentSession: keys, rendering and the calls it makes.
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { keys } from "../support/pty.ts";
import { longCommandTail } from "./scenarios.ts";
import {
  answerPrompt,
  saveScreen,
  spinnerShown,
  startScripted,
  typeAndSubmit,
} from "./tui-harness.ts";

test("a turn that writes a file shows the tool, the diff and the bytes on disk", async (t) => {
  const tui = await startScripted("write");
  t.after(() => tui.pty.kill());
  await typeAndSubmit(tui.pty, "create hello.txt");
  const screen = await tui.pty.waitFor("Done: hello.txt holds the greeting.");
  await tui.pty.waitUntil((s) => !spinnerShown(s), "spinner off");
  const final = tui.pty.screen();
  t.diagnostic(`final screen (${saveScreen(tui.dir, "write", final)}):\n${final}`);
  assert.match(screen, /● write_file hello\.txt/);
  assert.match(final, /created: 27 bytes, 2 lines on disk/);
  assert.match(final, /\+Hello, world!/);
  assert.match(final, /12\.3k \/ 32\.8k/);
});

test("a 400 shows the error in full and leaves no spinner", async (t) => {
  const tui = await startScripted("storm400");
  t.after(() => tui.pty.kill());
  await typeAndSubmit(tui.pty, "hello");
  await tui.pty.waitFor("Request failed: 400");
  const final = await tui.pty.waitUntil((s) => !spinnerShown(s), "spinner off");
  t.diagnostic(`final screen:\n${final}`);
  saveScreen(tui.dir, "storm400", final);
  const flat = final.replace(/[│\n]/g, " ").replace(/\s+/g, " ");
  assert.match(flat, /maximum context length is 32768 tokens/);
  assert.match(flat, /start afresh with \/clear\./, "the message is shown to its last word");
  assert.equal(flat.match(/maximum context length/g)?.length, 1, "the error is shown once");
});

test("a 429 shows the countdown, then the answer", async (t) => {
  const tui = await startScripted("retry429");
  t.after(() => tui.pty.kill());
  await typeAndSubmit(tui.pty, "hello");
  await tui.pty.waitFor(/429 from 127\.0\.0\.1:9, retry 1\/3 in [12]s/);
  await tui.pty.waitFor("Recovered after the rate limit.");
  const final = await tui.pty.waitUntil(
    (s) => !spinnerShown(s) && !/retry 1\/3 in/.test(s.split("\n").at(-1) ?? ""),
    "idle",
  );
  t.diagnostic(`final screen:\n${final}`);
  saveScreen(tui.dir, "retry429", final);
});

test("Ctrl-C during a stream interrupts the session and the spinner clears", async (t) => {
  const tui = await startScripted("endless");
  t.after(() => tui.pty.kill());
  await typeAndSubmit(tui.pty, "write a lot");
  await tui.pty.waitFor("Line 3 of a very long answer.");
  assert.ok(spinnerShown(tui.pty.screen()));
  tui.pty.write(keys.ctrlC);
  const final = await tui.pty.waitUntil((s) => !spinnerShown(s), "spinner off");
  await tui.pty.waitFor("Interrupted: interrupted by the user.");
  t.diagnostic(`final screen:\n${tui.pty.screen()}`);
  saveScreen(tui.dir, "interrupt", final);
  assert.deepEqual(
    tui.calls().map((c) => c.call),
    ["submit", "interrupt"],
  );
  // Still running: the interrupt did not exit the program, and the prompt is ready again.
  await tui.pty.waitFor("Ask nex");
});

test("Esc interrupts a running turn too", async (t) => {
  const tui = await startScripted("endless");
  t.after(() => tui.pty.kill());
  await typeAndSubmit(tui.pty, "write a lot");
  await tui.pty.waitFor("Line 2 of a very long answer.");
  tui.pty.write(keys.esc);
  await tui.pty.waitFor("Interrupted");
  assert.ok(tui.calls().some((c) => c.call === "interrupt"));
});

test("a permission prompt denied with a reason sends the reason and shows the call as denied", async (t) => {
  const tui = await startScripted("permission");
  t.after(() => tui.pty.kill());
  await typeAndSubmit(tui.pty, "overwrite keep.txt");
  await tui.pty.waitFor("Allow write_file?");
  await answerPrompt(tui.pty, "n");
  await tui.pty.waitFor("Why not?");
  tui.pty.write("keep my file");
  await tui.pty.waitFor("keep my file");
  tui.pty.write(keys.enter);
  const final = await tui.pty.waitFor("Understood, I left keep.txt alone.");
  t.diagnostic(`final screen:\n${final}`);
  saveScreen(tui.dir, "permission", final);
  assert.match(final, /denied — nothing was run or written/);
  assert.match(final, /the user denied it: keep my file/);
  const answer = tui.calls().find((c) => c.call === "answerPermission");
  assert.deepEqual(answer?.detail, {
    callId: "c1",
    answer: { type: "deny", reason: "keep my file" },
  });
});

test("approving a permission prompt for the session answers allow_session", async (t) => {
  const tui = await startScripted("permission");
  t.after(() => tui.pty.kill());
  await typeAndSubmit(tui.pty, "overwrite keep.txt");
  await tui.pty.waitFor("Allow write_file?");
  await answerPrompt(tui.pty, "a");
  await tui.pty.waitFor("Written.");
  const answer = tui.calls().find((c) => c.call === "answerPermission");
  assert.deepEqual(answer?.detail, { callId: "c1", answer: { type: "allow_session" } });
});

test("typing 'ya' as a permission prompt appears approves nothing and keeps the letters in the draft", async (t) => {
  // A guard longer than the test process may be starved between two writes below: each key arrives
  // within it of the one before, as when typed.
  const guardMs = 10_000;
  const tui = await startScripted("permission", { answerGuardMs: guardMs });
  t.after(() => tui.pty.kill());
  await typeAndSubmit(tui.pty, "overwrite keep.txt");
  await tui.pty.waitFor("Allow write_file?");
  tui.pty.write("ya");
  await sleep(20);
  tui.pty.write("y");
  await sleep(20);
  tui.pty.write("a");
  // The count shows all four letters were read: only then does the guard's quiet time start (a
  // starved nex reads keys written apart in one go).
  const screen = await tui.pty.waitFor("the prompt draft, which now holds 4 characters");
  t.diagnostic(`screen after the keys:\n${screen}`);
  assert.match(screen, /Allow write_file\?/, "the question is still open");
  assert.equal(
    tui.calls().some((c) => c.call === "answerPermission"),
    false,
    "no answer was sent",
  );
  await answerPrompt(tui.pty, "n", guardMs);
  await tui.pty.waitFor("Why not?");
  tui.pty.write(keys.enter);
  await tui.pty.waitFor("Understood, I left keep.txt alone.");
  await tui.pty.waitFor("│ › yaya");
  const answers = tui.calls().filter((c) => c.call === "answerPermission");
  assert.deepEqual(
    answers.map((c) => c.detail),
    [{ callId: "c1", answer: { type: "deny" } }],
  );
});

test("a request too tall for the prompt shows its head and its concealed tail, and a cannot approve it for the session", async (t) => {
  const tui = await startScripted("longCommand");
  t.after(() => tui.pty.kill());
  await typeAndSubmit(tui.pty, "run the steps");
  const screen = await tui.pty.waitFor("Allow bash?");
  t.diagnostic(`prompt:\n${screen}`);
  assert.match(screen, /echo step 1 &&/, "the head shows");
  assert.match(screen, /… \d+ lines hidden …/);
  assert.ok(screen.includes(longCommandTail), "the last line shows");
  assert.equal(
    tui.pty.output().includes("\x1b[8m"),
    false,
    "nothing reaches the terminal concealed",
  );
  assert.match(screen, /a \(for this session\) is unavailable/);
  await answerPrompt(tui.pty, "a");
  await tui.pty.waitFor("Press v to view it");
  assert.equal(
    tui.calls().some((c) => c.call === "answerPermission"),
    false,
    "a answered nothing",
  );
  await answerPrompt(tui.pty, "v");
  await tui.pty.waitUntil(
    () => tui.pty.history().includes("bash asks to run, in full:"),
    "the whole request in the chat",
  );
  await answerPrompt(tui.pty, "n");
  await tui.pty.waitFor("Why not?");
  tui.pty.write(keys.enter);
  await tui.pty.waitFor("denied — nothing was run or written");
  assert.match(tui.pty.history(), /echo step 20 &&/, "v put every row in the chat");
});

test("Alt+Enter and a trailing backslash add lines; Up recalls the previous prompt", async (t) => {
  const tui = await startScripted("echo");
  t.after(() => tui.pty.kill());
  tui.pty.write("first line");
  await tui.pty.waitFor("first line");
  tui.pty.write(keys.altEnter);
  tui.pty.write("second line\\");
  await tui.pty.waitFor("second line\\");
  tui.pty.write(keys.enter);
  tui.pty.write("third");
  await tui.pty.waitFor("third");
  tui.pty.write(keys.enter);
  await tui.pty.waitFor('You said: "first line\\nsecond line\\nthird"');
  await tui.pty.waitUntil((s) => !spinnerShown(s), "spinner off");
  tui.pty.write(keys.up);
  await tui.pty.waitUntil(
    (s) => /│ › first line/.test(s),
    "the previous prompt back in the editor",
  );
  tui.pty.write(keys.enter);
  await tui.pty.waitUntil((s) => s.split('You said: "first line').length === 3, "a second echo");
  const submitted = tui
    .calls()
    .filter((c) => c.call === "submit")
    .map((c) => c.detail);
  assert.deepEqual(submitted, ["first line\nsecond line\nthird", "first line\nsecond line\nthird"]);
});

test("Ctrl-C on an idle prompt asks for a second one, which exits with status 0", async (t) => {
  const tui = await startScripted("echo");
  t.after(() => tui.pty.kill());
  tui.pty.write(keys.ctrlC);
  await tui.pty.waitFor("Press Ctrl-C again to exit.");
  tui.pty.write(keys.ctrlC);
  assert.equal(await tui.pty.exited, 0);
  assert.deepEqual(
    tui.calls().map((c) => c.call),
    ["close"],
  );
});

test("Shift+Tab and /mode change the permission mode shown in the status bar", async (t) => {
  const tui = await startScripted("echo");
  t.after(() => tui.pty.kill());
  assert.match(tui.pty.screen(), /⏵ ask/);
  tui.pty.write(keys.shiftTab);
  await tui.pty.waitFor("⏵ auto_edit");
  await typeAndSubmit(tui.pty, "/mode approve_all");
  await tui.pty.waitFor("⏵ approve_all");
  await tui.pty.waitFor("Permission mode is now approve_all.");
  const modes = tui
    .calls()
    .filter((c) => c.call === "setPermissionMode")
    .map((c) => c.detail);
  assert.deepEqual(modes, ["auto_edit", "approve_all"]);
});

test("slash commands call the session and show what it reports", async (t) => {
  const tui = await startScripted("echo");
  t.after(() => tui.pty.kill());
  await typeAndSubmit(tui.pty, "/undo 2");
  await tui.pty.waitFor("Restored 1 file to before the last 2 turn(s)");
  await typeAndSubmit(tui.pty, "/resume 2026");
  await tui.pty.waitFor("nex resume 20260101-abcdef");
  await typeAndSubmit(tui.pty, "/model qwen3-coder");
  await tui.pty.waitFor("Model is now qwen3-coder: window 32768 tokens (default).");
  await typeAndSubmit(tui.pty, "/bogus");
  await tui.pty.waitFor("Unknown command /bogus. Type /help for the list.");
  const calls = tui.calls().map((c) => c.call);
  assert.deepEqual(calls, ["undo", "listSessions", "setModel"]);
  t.diagnostic(tui.pty.screen());
});

test("a resumed session shows how its journal was made to fit", async (t) => {
  const line =
    "Journal had 311 messages (~250k tokens); kept the last 47 (~28k tokens) to fit qwen3-coder (32768).";
  const tui = await startScripted("echo", { resumeLine: line });
  t.after(() => tui.pty.kill());
  assert.match(tui.pty.screen(), /Journal had 311 messages/);
});

test("a long answer in a small terminal streams without ever clearing the screen, and all of it lands in the scrollback", async (t) => {
  const tui = await startScripted("longAnswer", { cols: 60, rows: 16 });
  t.after(() => tui.pty.kill());
  await typeAndSubmit(tui.pty, "go");
  await tui.pty.waitFor("row 120");
  await tui.pty.waitUntil((s) => !spinnerShown(s), "spinner off");
  // Ink falls back to clearing the terminal and reprinting the whole chat once the live region is too tall.
  assert.equal(tui.pty.output().includes("\x1b[2J"), false, "the terminal was never cleared");
  const history = tui.pty.history();
  const longLine = history.slice(0, history.indexOf("END-OF-LONG-LINE"));
  assert.equal(longLine.match(/word/g)?.length, 600, "the long line is kept whole");
  const rowsSeen = [...history.matchAll(/^row (\d+)$/gm)].map((m) => Number(m[1]));
  assert.deepEqual(
    rowsSeen,
    Array.from({ length: 120 }, (_, i) => i + 1),
    "every row once, in order",
  );
});
