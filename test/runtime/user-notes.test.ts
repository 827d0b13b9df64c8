import assert from "node:assert/strict";
import { test } from "node:test";
import { noteForModel, UserNotes } from "../../src/runtime/session/input/user-notes.ts";

test("notes typed during a turn: steering ones are taken first, a note taken back is never delivered, empty and huge ones are refused", () => {
  const notes = new UserNotes();
  const first = notes.add("check the README", "queued");
  const gone = notes.add("never mind", "queued");
  const steer = notes.add("use tabs", "steer");
  assert.ok("id" in first && "id" in gone && "id" in steer);
  assert.equal(notes.remove(gone.id), true);
  assert.equal(notes.remove(gone.id), false, "gone already");
  assert.deepEqual(
    notes.takeAll().map((n) => n.text),
    ["use tabs", "check the README"],
  );
  assert.deepEqual(notes.takeAll(), [], "delivered once");
  assert.equal(notes.remove(first.id), false, "a delivered note cannot be taken back");
  assert.match(String((notes.add("   ", "queued") as { refused: string }).refused), /empty/);
  assert.match(
    String((notes.add("x".repeat(70_000), "queued") as { refused: string }).refused),
    /too long/,
  );
  assert.match(noteForModel({ id: 9, kind: "steer", text: "stop" }), /steering note[\s\S]*stop/);
});

test("a flood of messages during one turn is bounded: past fifty waiting, more are refused with the reason", () => {
  const notes = new UserNotes();
  for (let i = 0; i < 50; i++) assert.ok("id" in notes.add(`message ${i}`, "queued"));
  assert.match(
    String((notes.add("one more", "queued") as { refused: string }).refused),
    /50 messages/,
  );
  notes.takeAll();
  assert.ok("id" in notes.add("after the turn", "queued"), "room again once they were delivered");
});
