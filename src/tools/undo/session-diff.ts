// `/diff`: what this session changed, per file, as a unified diff of the content before the
// session's first change to it (undo's snapshots) against the workspace now. Loaded on first use.
import { lstat } from "node:fs/promises";
import { displayKey, shortDiff } from "../files/index.ts";
import { readBlob, readCheckpointLog } from "./checkpoints/index.ts";
import type { ShadowGit } from "./shadow-git.ts";
import type { State } from "./turn-changes.ts";
import { planOf } from "./undo-plan.ts";
import { absBytes, type Current, currentOf, sameState } from "./undo-restore.ts";
import { openStore, type UndoOptions } from "./undo-store.ts";

/** A file larger than this is named, not diffed: a diff is for reading. */
const MAX_DIFF_BYTES = 1024 * 1024;

/** What /diff shows at most: lines per file and lines in all. */
export interface DiffLimits {
  fileLines: number;
  totalLines: number;
}

type Side = { type: "text"; text: string } | { type: "absent" } | { type: "note"; note: string };

/** The session's changes since checkpoint `mark` (0: all of them), as text to show. */
export async function sessionDiff(
  options: Omit<UndoOptions, "turns">,
  mark: number,
  limits: DiffLimits,
): Promise<string> {
  const checkpoints = readCheckpointLog(options.checkpointDir).checkpoints.filter(
    (c) => c.seq > mark && c.undoneExcept === undefined,
  );
  if (checkpoints.length === 0)
    return "No change of this session is in the workspace: none was made, or all were undone.";
  const { ws, shadow } = await openStore(options);
  const plan = await planOf(checkpoints, shadow, options.checkpointDir, ws.root, true);
  const parts: string[] = [];
  const named: string[] = [];
  let lines = 0;
  let files = 0;
  for (const [key, change] of [...plan].sort(([a], [b]) => a.localeCompare(b))) {
    if (key.endsWith("/")) continue;
    // A huge file is named unread: memory stays bounded, whatever a command wrote.
    const info = await lstat(absBytes(ws.root, key)).catch(() => null);
    if (info?.isFile() && info.size > MAX_DIFF_BYTES) {
      files += 1;
      parts.push(
        `${displayKey(key)} (changed?): ${info.size} bytes now, too large to compare or diff here`,
      );
      continue;
    }
    const now = await currentOf(ws.root, key).catch(() => null);
    if (now === null || sameState(now, change.before)) continue;
    files += 1;
    const display = displayKey(key);
    if (lines >= limits.totalLines) {
      named.push(display);
      continue;
    }
    const before = await sideOf(change.before, shadow, options.checkpointDir);
    const after = sideNow(now);
    const text = await fileDiff(display, before, after, limits.fileLines);
    parts.push(text);
    lines += text.split("\n").length + 1;
  }
  if (files === 0)
    return "No file differs from before this session's changes (what changed was put back).";
  const head = `${files} file${files === 1 ? "" : "s"} changed in this session (against undo's snapshots; /undo puts them back):`;
  const tail =
    named.length > 0 ? [`… and ${named.length} more, not shown: ${named.join(", ")}`] : [];
  const unmeasured = checkpoints.flatMap((c) =>
    (c.runs ?? [])
      .filter((run) => run.before === null || run.after === null)
      .map((run) => run.command),
  );
  if (unmeasured.length > 0)
    tail.push(
      `Not measured (no snapshot was taken around them), so their changes may be missing here: ${unmeasured.join("; ")}`,
    );
  return [head, "", parts.join("\n\n"), ...tail].join("\n");
}

async function sideOf(state: State, shadow: ShadowGit, checkpointDir: string): Promise<Side> {
  switch (state.type) {
    case "absent":
      return { type: "absent" };
    case "dir":
      return { type: "note", note: "a folder" };
    case "unrecorded":
    case "hash":
      return { type: "note", note: "not saved (ignored or too large for the snapshot)" };
    case "tree":
      if (state.entry.mode === "120000")
        return {
          type: "note",
          note: `a link to ${(await shadow.readBlob(state.entry.sha)).toString()}`,
        };
      return textSide(await shadow.readBlob(state.entry.sha));
    case "image":
      return textSide(await readBlob(checkpointDir, state.blob));
  }
}

function sideNow(now: Current): Side {
  if (now.type === "absent") return { type: "absent" };
  if (now.type === "dir") return { type: "note", note: "a folder" };
  if (now.type === "link") return { type: "note", note: `a link to ${now.target.toString()}` };
  return textSide(now.bytes);
}

function textSide(bytes: Buffer, size = bytes.length): Side {
  if (size > MAX_DIFF_BYTES) return { type: "note", note: `${size} bytes, too large to diff here` };
  if (bytes.includes(0)) return { type: "note", note: `binary, ${size} bytes` };
  return { type: "text", text: bytes.toString("utf8") };
}

async function fileDiff(
  display: string,
  before: Side,
  after: Side,
  maxLines: number,
): Promise<string> {
  const what =
    before.type === "absent" ? "created" : after.type === "absent" ? "deleted" : "changed";
  if (before.type === "note" || after.type === "note") {
    const was = before.type === "note" ? before.note : before.type === "absent" ? "absent" : "text";
    const is = after.type === "note" ? after.note : after.type === "absent" ? "absent" : "text";
    return `${display} (${what}): before: ${was}; now: ${is}`;
  }
  const old = before.type === "text" ? before.text : "";
  const now = after.type === "text" ? after.text : "";
  const diff = await shortDiff(display, old, now, maxLines);
  return `${display} (${what})\n${diff}`;
}
