import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// A caller's stable name for a session (`--session-id task-42`): a small file per name holding nex's
// own session id, so the same task's agent resumes its own conversation on every run.

function namePath(dataDir: string, name: string): string {
  return join(dataDir, "session-names", name);
}

/** nex's id of the session the caller named, or null when the name is new. */
export function namedSession(dataDir: string, name: string): string | null {
  const path = namePath(dataDir, name);
  if (!existsSync(path)) return null;
  const id = readFileSync(path, "utf8").trim();
  return id === "" ? null : id;
}

/** Remembers the name of a new session (written whole: a temp file, then a rename). */
export function nameSession(dataDir: string, name: string, id: string): void {
  const dir = join(dataDir, "session-names");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = `${namePath(dataDir, name)}.${process.pid}.tmp`;
  writeFileSync(temp, `${id}\n`, { mode: 0o600 });
  renameSync(temp, namePath(dataDir, name));
}
