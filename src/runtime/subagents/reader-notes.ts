// Where a reader keeps its place and its notes: a folder per reading (the file and the task) beside
// the session (`<dataDir>/readers/<session>/<key>/`, 0700, files 0600), written whole by rename
// after every step, so a reader interrupted mid-way (Ctrl-C, a crash) starts again where its
// last notes were written, with those notes.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A reading's place: the chunks' size it was cut with, the next chunk, and how it ended. */
export interface ReaderState {
  version: 1;
  /** What was read (its digest: a changed file is read again from its start). */
  what: string;
  digest: string;
  task: string;
  chunkBytes: number;
  /** The first chunk whose notes are not written yet. */
  next: number;
  /** Rounds that took chunk `next` and wrote no notes (past two, the chunk is passed over). */
  unnoted: number;
  finished: boolean;
  result: string | null;
}

/** One reading's state and notes, kept in a folder or (with none) in memory only. */
export interface ReaderStore {
  state: ReaderState;
  notes: string;
  /** True when the state came from an earlier, unfinished or finished, run. */
  resumed: boolean;
  /** True when an earlier reading's notes were for other text (the file changed): they are replaced. */
  stale: boolean;
  save(): void;
}

export function readingKey(what: string, task: string): string {
  return createHash("sha256").update(`${what}\0${task.trim()}`).digest("hex").slice(0, 16);
}

export function textDigest(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The reading of `fresh.what` for `fresh.task`: the kept one when its text is unchanged, else new. */
export function openReading(dir: string | null, fresh: ReaderState): ReaderStore {
  const folder = dir ? join(dir, readingKey(fresh.what, fresh.task)) : null;
  let state = fresh;
  let notes = "";
  let resumed = false;
  let stale = false;
  if (folder) {
    const kept = readKept(folder);
    if (kept && kept.state.digest === fresh.digest && kept.state.task === fresh.task) {
      state = kept.state;
      notes = kept.notes;
      resumed = true;
    } else stale = kept !== null;
  }
  const store: ReaderStore = {
    state,
    notes,
    resumed,
    stale,
    save() {
      if (!folder) return;
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      // Notes first: a state that says a chunk is noted never points at notes not on disk.
      writeWhole(join(folder, "notes.md"), store.notes);
      writeWhole(join(folder, "state.json"), `${JSON.stringify(store.state, null, 2)}\n`);
    },
  };
  return store;
}

function readKept(folder: string): { state: ReaderState; notes: string } | null {
  try {
    const state = JSON.parse(readFileSync(join(folder, "state.json"), "utf8")) as ReaderState;
    if (state.version !== 1 || !Number.isInteger(state.next) || state.next < 0) return null;
    let notes = "";
    try {
      notes = readFileSync(join(folder, "notes.md"), "utf8");
    } catch {
      notes = "";
    }
    return { state, notes };
  } catch {
    // None kept, or a torn one: the reading starts afresh.
    return null;
  }
}

function writeWhole(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  renameSync(temporary, path);
}
