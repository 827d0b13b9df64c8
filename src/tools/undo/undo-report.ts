// What undo says: its report, and the words for what it did and could not do.
import { basename } from "node:path";
import type { TurnCheckpoint } from "./checkpoints/index.ts";

/** How a restored path changed back. */
export type UndoAction = "modified" | "deleted again" | "re-created" | "mode restored";

/** What `undo` did, with the plain text to show. */
export interface UndoReport {
  /** The sentence(s) to show the user. */
  text: string;
  /** Turn numbers undone, oldest first. */
  turns: number[];
  /** Prompt numbers undone, oldest first (empty for older logs). */
  prompts: number[];
  restored: Array<{ path: string; action: UndoAction }>;
  /** Paths undo did not touch because it is not sure they are the turn's, and why. */
  leftAlone: Array<{ path: string; reason: string }>;
  /** What could not be restored and why; `path` is null for a general limit (e.g. bash without a snapshot). */
  failed: Array<{ path: string | null; reason: string }>;
  /** Limits worth knowing that need no action. */
  notes: string[];
}

/** What undo could not do for bash's changes without a snapshot, and limits worth a note. */
export function limitsOf(selected: TurnCheckpoint[]): { failed: string[]; notes: string[] } {
  const failed: string[] = [];
  const notes: string[] = [];
  let partial = false;
  for (const checkpoint of selected) {
    if (checkpoint.commands.length === 0) continue;
    const runs = checkpoint.runs ?? [];
    const missing = checkpoint.runs
      ? runs.filter((run) => run.before === null || run.after === null)
      : checkpoint.snapshot.type === "taken" && checkpoint.after?.type === "taken"
        ? []
        : [{ command: checkpoint.commands.join("; "), reason: undefined }];
    for (const run of missing) {
      const why =
        run.reason ??
        (checkpoint.snapshot.type === "unavailable"
          ? checkpoint.snapshot.reason
          : checkpoint.after?.type === "unavailable"
            ? checkpoint.after.reason
            : "the snapshot after it is missing");
      const command = run.command.length > 60 ? `${run.command.slice(0, 60)}…` : run.command;
      failed.push(
        `changes bash made in turn ${checkpoint.turn} (\`${command}\`) to files nex did not write itself: no workspace snapshot (${why})`,
      );
    }
    if (missing.length < Math.max(1, runs.length)) partial = true;
  }
  if (partial) {
    notes.push(
      "Snapshots leave out files ignored by .gitignore, files over the size limit and nested repositories; changes bash made to those, if any, were not undone.",
    );
  }
  return { failed, notes };
}

const plural = (n: number, one: string, many: string): string => (n === 1 ? one : many);

/** The sentences `undo` shows for what it did. */
export function describe(
  report: Omit<UndoReport, "text">,
  first: TurnCheckpoint,
  requested: number,
  available: number,
  setAsideDir: string | null,
): string {
  const parts: string[] = [];
  const what =
    first.prompt !== undefined
      ? `${plural(report.prompts.length, "prompt", "prompts")} ${report.prompts.join(", ")}`
      : `turn ${first.turn}`;
  if (requested > available) {
    parts.push(
      `Only ${available} ${plural(available, "step has", "steps have")} recorded changes; undoing ${plural(available, "it", "all of them")}.`,
    );
  }
  if (report.restored.length > 0) {
    const list = report.restored.map((r) => `${r.path} (${r.action})`).join(", ");
    parts.push(
      `Restored ${report.restored.length} ${plural(report.restored.length, "file", "files")} to before ${what}: ${list}.`,
    );
  } else if (report.leftAlone.length === 0 && report.failed.length === 0) {
    parts.push(`No file needed restoring to its state before ${what}.`);
  } else {
    parts.push(`Restored nothing to before ${what}.`);
  }
  if (report.leftAlone.length > 0) {
    parts.push(`Left alone: ${report.leftAlone.map((f) => `${f.path} (${f.reason})`).join("; ")}.`);
  }
  if (report.failed.length > 0) {
    parts.push(
      `Could not restore: ${report.failed.map((f) => (f.path ? `${f.path} (${f.reason})` : f.reason)).join("; ")}.`,
    );
  }
  if (report.leftAlone.some((f) => f.reason.includes("does not name it")))
    parts.push(
      "Undo reverts such files only when asked: `nex undo --include-unsure` (`nex undo --list` shows them beforehand).",
    );
  if (setAsideDir)
    parts.push(
      `Copies of what undo replaced or removed are kept in this session's checkpoint folder, under undone/${basename(setAsideDir)}.`,
    );
  for (const note of report.notes) parts.push(`Note: ${note}`);
  return parts.join(" ");
}

export const shortCommand = (command: string): string =>
  command.length > 60 ? `${command.slice(0, 60)}…` : command;
