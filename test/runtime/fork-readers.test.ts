// A fork carries the session's readers' notes (beside its images and stored results): an
// interrupted reader asked again in the fork goes on from the same notes.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { forkJournal } from "../../src/runtime/history/fork-session.ts";
import { scratchDir } from "../support/scratch-dir.ts";

test("a fork copies the readers' notes of the session it forks", async () => {
  const dataDir = scratchDir("nex-fork-readers-");
  const id = "s-original";
  mkdirSync(join(dataDir, "sessions"), { recursive: true });
  const journal = join(dataDir, "sessions", `${id}.jsonl`);
  writeFileSync(journal, `${JSON.stringify({ type: "session", id })}\n`);
  const reading = join(dataDir, "readers", id, "0123456789abcdef");
  mkdirSync(reading, { recursive: true });
  writeFileSync(join(reading, "notes.md"), "NOTE 1\n");
  const fork = await forkJournal(journal, id);
  assert.equal(
    readFileSync(join(dataDir, "readers", fork.sessionId, "0123456789abcdef", "notes.md"), "utf8"),
    "NOTE 1\n",
  );
});
