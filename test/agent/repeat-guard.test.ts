import assert from "node:assert/strict";
import { test } from "node:test";
import { RepeatGuard } from "../../src/agent/repeat-guard.ts";

test("a read that answered twice with nothing changed since is refused, wherever the repeats fell", () => {
  const guard = new RepeatGuard();
  const a = 'read_file:{"path":"a.txt"}';
  const b = 'read_file:{"path":"b.txt"}';
  guard.record(a, 1, "alpha", true);
  guard.record(b, 2, "beta", true);
  assert.equal(guard.stuck(a, 3, true), null, "a second read is fair");
  guard.record(a, 3, "alpha", true);
  guard.record(b, 4, "beta", true);
  assert.match(guard.stuck(a, 5, true) ?? "", /already returned the same result 2 times/);
});

test("a change in between (a write, a command) makes reading again fair, and so does a compaction", () => {
  const guard = new RepeatGuard();
  const a = 'read_file:{"path":"a.txt"}';
  guard.record(a, 1, "alpha", true);
  guard.record(a, 3, "alpha", true);
  guard.record('bash:{"command":"make"}', 4, "ok", false);
  assert.equal(guard.stuck(a, 5, true), null, "the command may have changed a.txt");
  guard.record(a, 5, "alpha", true);
  guard.record(a, 7, "alpha", true);
  assert.notEqual(guard.stuck(a, 9, true), null);
  guard.forgetReads();
  assert.equal(guard.stuck(a, 9, true), null, "after a compaction the model may no longer have it");
});

test("a command is never refused for repeating out of turn: only the same result turn after turn stops it", () => {
  const guard = new RepeatGuard();
  const test_ = 'bash:{"command":"npm test"}';
  guard.record(test_, 1, "1 failing", false);
  guard.record('edit_file:{"path":"a.ts"}', 2, "edited", false);
  guard.record(test_, 3, "1 failing", false);
  guard.record('edit_file:{"path":"a.ts"}', 4, "edited", false);
  assert.equal(guard.stuck(test_, 5, false), null);
  guard.record(test_, 5, "1 failing", false);
  guard.record(test_, 6, "1 failing", false);
  assert.match(guard.stuck(test_, 7, false) ?? "", /each of the last 2 turns/);
});

test("a call whose result changed is never refused as a repeat", () => {
  const guard = new RepeatGuard();
  const read = 'read_file:{"path":"log.txt"}';
  guard.record(read, 1, "line 1", true);
  guard.record(read, 3, "line 1\nline 2", true);
  assert.equal(guard.stuck(read, 5, true), null, "the file grew between the reads");
  const status = 'bash:{"command":"git status"}';
  guard.record(status, 1, "clean", false);
  guard.record(status, 2, "1 file changed", false);
  assert.equal(guard.stuck(status, 3, false), null, "the command's answer changed turn to turn");
});
