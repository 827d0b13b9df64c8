import assert from "node:assert/strict";
import { test } from "node:test";
import type { Key } from "ink";
import {
  handleKey,
  type InputContext,
  type InputState,
  initialInput,
  type KeyResult,
  noKey,
} from "../../src/tui/input/keymap.ts";

const idle: InputContext = {
  busy: false,
  requesting: false,
  permission: null,
  now: 0,
  permissionShownAt: 0,
  guardMs: 300,
  permissionWhole: true,
};

function press(state: InputState, keys: [string, Partial<Key>?][], ctx = idle): KeyResult {
  let result: KeyResult = { state, actions: [] };
  for (const [input, key] of keys) {
    const next = handleKey(result.state, ctx, input, { ...noKey, ...key });
    result = { state: next.state, actions: [...result.actions, ...next.actions] };
  }
  return result;
}

test("keys arriving back to back each see the text the previous one left", () => {
  const r = press(initialInput, [
    ["ab"],
    ["\r", { return: true, meta: true }],
    ["cd"],
    ["\r", { return: true }],
  ]);
  assert.deepEqual(r.actions, [{ type: "submit", text: "ab\ncd" }]);
  assert.equal(r.state.editor.text, "");
});

test("text and Enter in one chunk submit; a pasted block keeps its newlines as text", () => {
  assert.deepEqual(press(initialInput, [["hello\r"]]).actions, [{ type: "submit", text: "hello" }]);
  const pasted = press(initialInput, [["[200~"], ["a\rb\rc"], ["[201~"]]);
  assert.deepEqual(pasted.actions, []);
  assert.equal(pasted.state.editor.text, "a\nb\nc");
});

test("Ctrl-C interrupts while busy, clears a typed prompt, and exits only on the second press when idle", () => {
  assert.deepEqual(press(initialInput, [["c", { ctrl: true }]], { ...idle, busy: true }).actions, [
    { type: "interrupt" },
  ]);
  const typed = press(initialInput, [["draft"], ["c", { ctrl: true }]]);
  assert.equal(typed.state.editor.text, "");
  assert.deepEqual(typed.actions, []);
  const once = press(initialInput, [["c", { ctrl: true }]]);
  assert.deepEqual(once.actions, []);
  assert.equal(once.state.hint, "Press Ctrl-C again to exit.");
  assert.deepEqual(press(once.state, [["c", { ctrl: true }]]).actions, [{ type: "exit" }]);
  assert.deepEqual(
    press(once.state, [["x"], ["c", { ctrl: true }]]).actions,
    [],
    "another key disarms it",
  );
});

test("while a turn runs, Enter queues the message, Alt+Enter steers, a command waits with its reason, ↑ takes one back", () => {
  const busy = { ...idle, busy: true };
  const queued = press(initialInput, [["next"], ["\r", { return: true }]], busy);
  assert.deepEqual(queued.actions, [{ type: "queue", text: "next", kind: "queued" }]);
  assert.equal(queued.state.editor.text, "");
  const steer = press(initialInput, [["tabs"], ["\r", { return: true, meta: true }]], busy);
  assert.deepEqual(steer.actions, [{ type: "queue", text: "tabs", kind: "steer" }]);
  const command = press(initialInput, [["/status"], ["\r", { return: true }]], busy);
  assert.deepEqual(command.actions, []);
  assert.equal(command.state.editor.text, "/status");
  assert.match(command.state.hint ?? "", /Commands run between turns/);
  const back = press(initialInput, [["", { upArrow: true }]], { ...busy, queued: 1 });
  assert.deepEqual(back.actions, [{ type: "unqueue_last" }]);
  // Idle, Alt+Enter is still a new line.
  const idleNewline = press(initialInput, [["a"], ["\r", { return: true, meta: true }]], idle);
  assert.equal(idleNewline.state.editor.text, "a\n");
});

test("a permission prompt: y allows once, a for the session, n then a reason denies with it", () => {
  const request = { callId: "c1", name: "bash", summary: "rm x" };
  const ctx = { ...idle, busy: true, permission: request, now: 10_000 };
  assert.deepEqual(press(initialInput, [["y"]], ctx).actions, [
    { type: "answer", request, answer: { type: "allow_once" } },
  ]);
  assert.deepEqual(press(initialInput, [["a"]], ctx).actions, [
    { type: "answer", request, answer: { type: "allow_session" } },
  ]);
  const denied = press(initialInput, [["n"], ["not now"], ["\r", { return: true }]], ctx);
  assert.deepEqual(denied.actions, [
    { type: "answer", request, answer: { type: "deny", reason: "not now" } },
  ]);
  const bare = press(initialInput, [["n"], ["\r", { return: true }]], ctx);
  assert.deepEqual(bare.actions, [{ type: "answer", request, answer: { type: "deny" } }]);
  assert.deepEqual(
    press(initialInput, [["x"], ["\r", { return: true }]], ctx).actions,
    [],
    "other keys do not answer",
  );
});

test("Up walks back through submitted prompts and Down returns to the draft", () => {
  let r = press(initialInput, [
    ["one"],
    ["\r", { return: true }],
    ["two"],
    ["\r", { return: true }],
    ["dr"],
  ]);
  r = press(r.state, [["", { upArrow: true }]]);
  assert.equal(r.state.editor.text, "two");
  r = press(r.state, [["", { upArrow: true }]]);
  assert.equal(r.state.editor.text, "one");
  r = press(r.state, [
    ["", { downArrow: true }],
    ["", { downArrow: true }],
  ]);
  assert.equal(r.state.editor.text, "dr");
});

test("Shift+Tab cycles the mode and Esc interrupts only when something runs", () => {
  assert.deepEqual(press(initialInput, [["", { tab: true, shift: true }]]).actions, [
    { type: "cycle_mode" },
  ]);
  // Idle, Esc only hides the suggestions; nothing is interrupted.
  assert.deepEqual(press(initialInput, [["", { escape: true }]]).actions, [
    { type: "dismiss_completion" },
  ]);
  assert.deepEqual(press(initialInput, [["", { tab: true }]]).actions, [{ type: "complete" }]);
  assert.deepEqual(
    press(initialInput, [["", { escape: true }]], { ...idle, requesting: true }).actions,
    [{ type: "interrupt" }],
  );
});

test("Ctrl-V asks for the clipboard's image and leaves the draft as it is", () => {
  const typed = press(initialInput, [["a", {}]]);
  const r = press(typed.state, [["v", { ctrl: true }]]);
  assert.deepEqual(r.actions, [{ type: "paste_image" }]);
  assert.equal(r.state.editor.text, "a");
});

const request = { callId: "c1", name: "bash", summary: "rm -rf build" };
/** A prompt that appeared at t=1000; `now` is when the key arrives. */
const asked = (now: number): InputContext => ({
  ...idle,
  busy: true,
  permission: request,
  permissionShownAt: 1000,
  now,
});

test("answer keys pressed within 300 ms of the prompt appearing answer nothing and never reach the draft", () => {
  const early = press(initialInput, [["y"], ["a"]], asked(1100));
  assert.deepEqual(early.actions, [], "no approval");
  assert.equal(early.state.editor.text, "", "a key meant as an answer does not land in the draft");
  assert.match(early.state.hint ?? "", /ignored: pressed as the question appeared/);
  const answeredLater = press(early.state, [["y"]], asked(1500));
  assert.deepEqual(answeredLater.actions, [
    { type: "answer", request, answer: { type: "allow_once" } },
  ]);
  assert.equal(answeredLater.state.editor.text, "", "nor after the answer");
  const words = press(initialInput, [["y"], ["e"], ["s"]], asked(1100));
  assert.equal(
    words.state.editor.text,
    "yes",
    "typing that starts with an answer key is kept whole",
  );
  assert.equal(
    press(initialInput, [["n"]], asked(1299)).state.reason,
    null,
    "n does not start a denial",
  );
  assert.deepEqual(press(initialInput, [["y"]], asked(1300)).actions, [
    { type: "answer", request, answer: { type: "allow_once" } },
  ]);
});

test("while keys keep coming, an answer key waits for a quiet 300 ms after the last of them", () => {
  let r = press(initialInput, [["h"]], asked(2000));
  r = press(r.state, [["a"]], asked(2200));
  assert.deepEqual(r.actions, [], "a typed 200 ms after another key is part of the typing");
  r = press(r.state, [["y"]], asked(2400));
  assert.deepEqual(r.actions, [], "still typing: 400 ms after the prompt, but 200 ms after a key");
  assert.equal(r.state.editor.text, "hay");
  const later = press(r.state, [["a"]], asked(2900));
  assert.deepEqual(later.actions, [{ type: "answer", request, answer: { type: "allow_session" } }]);
});

test("y, a and n count only as a lone key: a burst, a chunk with Enter or a paste answers nothing", () => {
  const burst = press(initialInput, [["ya"]], asked(9000));
  assert.deepEqual(burst.actions, []);
  assert.equal(burst.state.editor.text, "ya");
  const withEnter = press(initialInput, [["y\r"]], asked(9000));
  assert.deepEqual(
    withEnter.actions,
    [],
    "a y that arrived with an Enter is typing, not an answer",
  );
  const pasted = press(initialInput, [["[200~"], ["y"], ["[201~"]], asked(9000));
  assert.deepEqual(pasted.actions, []);
  assert.equal(pasted.state.editor.text, "y", "the paste is kept in the draft, not thrown away");
  assert.equal(press(initialInput, [["n"], ["o"]], asked(9000)).state.reason?.text, "o");
});

test("a request too long to show whole cannot be approved for the session: a says why, v shows it, y still works", () => {
  const cut = { ...asked(9000), permissionWhole: false };
  const refused = press(initialInput, [["a"]], cut);
  assert.deepEqual(refused.actions, []);
  assert.match(refused.state.hint ?? "", /a is unavailable: the request is too long to show whole/);
  assert.deepEqual(press(initialInput, [["v"]], cut).actions, [{ type: "view_request", request }]);
  assert.deepEqual(press(initialInput, [["y"]], cut).actions, [
    { type: "answer", request, answer: { type: "allow_once" } },
  ]);
});
