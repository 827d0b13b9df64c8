// The sandbox hides `.env*` files above the workspace before every command; the listing of a folder
// is reused between commands only while the folder cannot have changed.
import assert from "node:assert/strict";
import { statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { envNamesIn } from "../../src/tools/sandbox/env-files.ts";
import { scratchDir } from "../support/scratch-dir.ts";

/** A folder whose last change lies a minute back, so that its listing may be reused. */
function stillFolder(): string {
  const dir = scratchDir("nex-env-files-");
  writeFileSync(join(dir, "notes.txt"), "x");
  const past = new Date(Date.now() - 60_000);
  utimesSync(dir, past, past);
  return dir;
}

test("a .env file made after a folder was listed is found at the next command", () => {
  const dir = stillFolder();
  assert.deepEqual(envNamesIn(dir), []);
  assert.deepEqual(envNamesIn(dir), [], "listed again, unchanged");
  writeFileSync(join(dir, ".env.local"), "TOKEN=x\n");
  assert.deepEqual(envNamesIn(dir), [".env.local"]);
});

test("a folder whose modification time was put back is still read again (its change time moved)", () => {
  const dir = stillFolder();
  const before = statSync(dir);
  assert.deepEqual(envNamesIn(dir), []);
  writeFileSync(join(dir, ".env"), "TOKEN=x\n");
  utimesSync(dir, before.atime, before.mtime);
  assert.equal(statSync(dir).mtimeMs, before.mtimeMs, "the modification time is as it was");
  assert.deepEqual(envNamesIn(dir), [".env"]);
});

test("a folder changed just before it was listed is read again each time", () => {
  const dir = scratchDir("nex-env-files-");
  writeFileSync(join(dir, ".env.a"), "x");
  assert.deepEqual(envNamesIn(dir), [".env.a"]);
  // Within the same tick of a coarse clock a second change would leave the times as they are: the
  // first listing is not trusted, whatever the times say.
  const { atime, mtime } = statSync(dir);
  writeFileSync(join(dir, ".env.b"), "x");
  utimesSync(dir, atime, mtime);
  assert.deepEqual(envNamesIn(dir)?.sort(), [".env.a", ".env.b"]);
});
