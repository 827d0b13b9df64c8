// On a resume (after a crash most of all), the files the model read may have changed since: another
// process, the user, or the crashed run's own last command. The read ledger says what the model saw
// of each; the first prompt of the resumed session names the files that differ now, so the model
// reads them again before relying on what it remembers.
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { relative } from "node:path";
import type { ReadRecord } from "../../protocol/index.ts";

/** Past this size a file that differs in size or time counts as changed, without hashing it. */
const MAX_HASHED_BYTES = 8 * 1024 * 1024;
/** Most files named; the rest are counted. */
const MAX_NAMED = 40;

/** What a resumed session's first prompt carries: the kept summary and the changed files; null: nothing. */
export function resumeNote(
  summary: string | null,
  ledger: readonly ReadRecord[],
  workspace: string,
): string | null {
  const parts = [
    summary ? `[nex: the summary nex kept of this session so far]\n${summary}` : null,
    ledger.length > 0 ? changedSinceRead(ledger, workspace) : null,
  ].filter((part) => part !== null);
  return parts.length > 0 ? parts.join("\n\n") : null;
}

/** The note for the first prompt, or null when every file read is as the model saw it. */
export function changedSinceRead(ledger: readonly ReadRecord[], workspace: string): string | null {
  const changed: string[] = [];
  const byPath = [...ledger].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const record of byPath) {
    const state = stateOf(record);
    if (state) changed.push(`${relative(workspace, record.path) || record.path} (${state})`);
  }
  if (changed.length === 0) return null;
  const named = changed.slice(0, MAX_NAMED).join(", ");
  const more = changed.length > MAX_NAMED ? ` and ${changed.length - MAX_NAMED} more` : "";
  return `[nex: this session was resumed. Files you read earlier changed on disk since you last saw them: ${named}${more}. Read them again before you rely on or edit what you remember of them.]`;
}

function stateOf(record: ReadRecord): "changed" | "deleted" | null {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(record.path);
  } catch {
    return "deleted";
  }
  if (stat.size === record.size && stat.mtimeMs === record.mtimeMs) return null;
  if (stat.size !== record.size || stat.size > MAX_HASHED_BYTES) return "changed";
  try {
    const hash = createHash("sha256").update(readFileSync(record.path)).digest("hex");
    return hash === record.hash ? null : "changed";
  } catch {
    return "changed";
  }
}
