// Where a reader keeps its place: the same file and task find their notes again; a changed file
// starts afresh (and says it was stale); a torn state file is a fresh start, never a crash.
import assert from "node:assert/strict";
import { readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  openReading,
  type ReaderState,
  readingKey,
} from "../../src/runtime/subagents/reader-notes.ts";
import { scratchDir } from "../support/scratch-dir.ts";

const fresh = (digest: string): ReaderState => ({
  version: 1,
  what: "big.log",
  digest,
  task: "find the foxes",
  chunkBytes: 4096,
  next: 0,
  unnoted: 0,
  finished: false,
  result: null,
});

test("a reading finds its notes again for the same text and task; changed text starts afresh, said stale", () => {
  const dir = scratchDir("nex-reader-notes-");
  const first = openReading(dir, fresh("aaa"));
  assert.equal(first.resumed, false);
  first.notes = "NOTE 1";
  first.state.next = 1;
  first.save();
  const folder = join(dir, readingKey("big.log", "find the foxes"));
  for (const file of readdirSync(folder))
    assert.equal(statSync(join(folder, file)).mode & 0o777, 0o600);
  const again = openReading(dir, fresh("aaa"));
  assert.equal(again.resumed, true);
  assert.equal(again.state.next, 1);
  assert.equal(again.notes, "NOTE 1");
  const changed = openReading(dir, fresh("bbb"));
  assert.equal(changed.resumed, false);
  assert.equal(changed.stale, true);
  assert.equal(changed.state.next, 0);
  assert.equal(changed.notes, "");
});

test("a torn state file is a fresh start", () => {
  const dir = scratchDir("nex-reader-notes-");
  const store = openReading(dir, fresh("aaa"));
  store.save();
  writeFileSync(
    join(dir, readingKey("big.log", "find the foxes"), "state.json"),
    '{"version": 1, "ne',
  );
  const reopened = openReading(dir, fresh("aaa"));
  assert.equal(reopened.resumed, false);
  assert.equal(reopened.state.next, 0);
});
