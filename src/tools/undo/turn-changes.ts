import { type NamedPaths, namedPaths } from "../command-line/index.ts";
import { keyWithin, parentKey } from "../files/index.ts";
import {
  type BeforeImage,
  type CommandRun,
  readModes,
  type TurnCheckpoint,
} from "./checkpoints/index.ts";
import { impliedMode, type ModeMap, type ShadowGit, type TreeEntry } from "./shadow-git.ts";

/** A state a path was in: absent, a snapshot entry, a saved before-image, a known hash, a directory's mode. */
export type State =
  | { type: "absent"; createdDirs: string[] }
  /** It existed before the turn, but the snapshot left it out (ignored or too large). */
  | { type: "unrecorded" }
  /** `mode`: the exact permission bits (null for a link). */
  | { type: "tree"; entry: TreeEntry; mode: number | null }
  | { type: "image"; blob: string; mode: number | null }
  | { type: "hash"; sha256: string }
  | { type: "dir"; mode: number };

/** What one turn did to one path. */
export interface TurnChange {
  before: State;
  /** What the turn left; null when it is not known (the change was not confirmed). */
  after: State | null;
  /** Set when the last change was made while a command ran that does not name the path. */
  unsure?: string;
}

interface Touch {
  at: number;
  lastAt: number;
  before: State;
  after: State | null;
  /** The command it changed under without naming it. */
  unsure?: string;
}

function dirsOf(tree: Map<string, TreeEntry>): Set<string> {
  const dirs = new Set<string>();
  for (const key of tree.keys())
    for (let d = parentKey(key); d !== "." && !dirs.has(d); d = parentKey(d)) dirs.add(d);
  return dirs;
}

function createdDirsOf(key: string, dirs: Set<string>): string[] {
  const created: string[] = [];
  for (let d = parentKey(key); d !== "." && !dirs.has(d); d = parentKey(d)) created.unshift(d);
  return created;
}

const treeState = (entry: TreeEntry, modes: ModeMap, key: string): State => ({
  type: "tree",
  entry,
  mode: entry.mode === "120000" ? null : (modes[key] ?? impliedMode(entry.mode)),
});

function imageBefore(image: BeforeImage): State {
  return image.existed
    ? { type: "image", blob: image.blob ?? "", mode: image.mode ?? null }
    : { type: "absent", createdDirs: image.createdDirs ?? [] };
}

/** The command windows of a checkpoint; an older log has one window for the whole turn. */
function runsOf(checkpoint: TurnCheckpoint): CommandRun[] {
  if (checkpoint.runs) return checkpoint.runs;
  if (checkpoint.snapshot.type !== "taken" || checkpoint.after?.type !== "taken") return [];
  return [
    {
      command: "",
      at: 0,
      before: checkpoint.snapshot.commit,
      after: checkpoint.after.tree,
    },
  ];
}

async function runTouches(
  checkpoint: TurnCheckpoint,
  run: CommandRun,
  shadow: ShadowGit,
  checkpointDir: string,
  root: string,
): Promise<Map<string, Touch>> {
  const touches = new Map<string, Touch>();
  if (run.before === null || run.after === null) return touches;
  // The same tree and the same modes after as before: the command changed nothing git or the mode
  // maps hold, which is what the lists below would find, without three git processes to say it.
  if ((run.beforeTree ?? run.before) === run.after && run.beforeModes === run.afterModes)
    return touches;
  const [before, after, diff, beforeModes, afterModes, named] = await Promise.all([
    shadow.listTree(run.before),
    shadow.listTree(run.after),
    shadow.changes(run.before, run.after),
    readModes(checkpointDir, run.beforeModes),
    readModes(checkpointDir, run.afterModes),
    // Older logs have no windows per command: their one window is taken as the turn's.
    checkpoint.runs ? namedPaths(run.command, root) : ((() => true) as NamedPaths),
  ]);
  const beforeDirs = dirsOf(before);
  const afterDirs = dirsOf(after);
  const { snapshot } = checkpoint;
  const skipped = snapshot.type === "taken" ? snapshot.skipped : [];
  const ignored = snapshot.type === "taken" ? snapshot.ignored : [];
  // Not in the snapshot is not the same as absent: an ignored or too large file was left out.
  const leftOut = (key: string): boolean =>
    skipped.includes(key) ||
    ignored === null ||
    (ignored ?? []).some((entry) =>
      entry.endsWith("/") ? keyWithin(entry.slice(0, -1), key) : entry === key,
    );
  const touch = (key: string, was: State, is: State): void => {
    const isNamed = named(key);
    touches.set(key, {
      at: run.at,
      lastAt: run.at,
      before: was,
      after: is,
      ...(isNamed ? {} : { unsure: run.command }),
    });
  };
  for (const { path } of diff) {
    const was = before.get(path);
    const is = after.get(path);
    if (was?.mode === "160000" || is?.mode === "160000") continue;
    touch(
      path,
      was
        ? treeState(was, beforeModes, path)
        : leftOut(path)
          ? { type: "unrecorded" }
          : { type: "absent", createdDirs: createdDirsOf(path, beforeDirs) },
      is ? treeState(is, afterModes, path) : { type: "absent", createdDirs: [] },
    );
  }
  // Modes git does not see (0600 → 0777): compare the mode maps of files in both trees.
  for (const key of new Set([...Object.keys(beforeModes), ...Object.keys(afterModes)])) {
    if (touches.has(key)) continue;
    if (key.endsWith("/")) {
      const dir = key.slice(0, -1);
      if (!beforeDirs.has(dir) || !afterDirs.has(dir)) continue;
      const from = beforeModes[key] ?? 0o755;
      const to = afterModes[key] ?? 0o755;
      if (from !== to) touch(key, { type: "dir", mode: from }, { type: "dir", mode: to });
      continue;
    }
    const was = before.get(key);
    const is = after.get(key);
    if (!was || !is || was.sha !== is.sha || was.mode === "120000") continue;
    const from = treeState(was, beforeModes, key);
    const to = treeState(is, afterModes, key);
    if (from.type === "tree" && to.type === "tree" && from.mode !== to.mode) touch(key, from, to);
  }
  return touches;
}

/**
 * Every path one turn changed, with its state before and after the turn. Changes made while a
 * command ran count as the turn's only where the command names the path (see `command-paths.ts`);
 * a path whose last change is not surely the turn's is marked `unsure`.
 */
export async function changesOf(
  checkpoint: TurnCheckpoint,
  shadow: ShadowGit,
  checkpointDir: string,
  root: string,
  /** Count every change made while a command ran as the command's (`nex undo --include-unsure`). */
  trustUnnamed = false,
): Promise<Map<string, TurnChange>> {
  const all = new Map<string, Touch[]>();
  const add = (key: string, touch: Touch): void => {
    if (trustUnnamed) delete touch.unsure;
    all.set(key, [...(all.get(key) ?? []), touch]);
  };
  for (const run of runsOf(checkpoint)) {
    for (const [key, touch] of await runTouches(checkpoint, run, shadow, checkpointDir, root))
      add(key, touch);
  }
  const legacy = !checkpoint.runs;
  for (const image of checkpoint.files) {
    // Older logs: an image saved after the first command comes after the snapshot window.
    const at = image.at ?? (legacy && image.afterSnapshot ? Number.MAX_SAFE_INTEGER : -1);
    if (legacy && image.afterSnapshot && all.has(image.path)) continue;
    add(image.path, {
      at,
      lastAt: image.lastAt ?? at,
      before: imageBefore(image),
      after: image.afterHash ? { type: "hash", sha256: image.afterHash } : null,
    });
  }
  const changes = new Map<string, TurnChange>();
  for (const [key, touches] of all) {
    const byStart = [...touches].sort((a, b) => a.at - b.at);
    const byEnd = [...touches].sort((a, b) => a.lastAt - b.lastAt);
    const last = byEnd[byEnd.length - 1] as Touch;
    if (last.unsure !== undefined) {
      changes.set(key, { before: last.before, after: last.after, unsure: last.unsure });
      continue;
    }
    // What changed under a command that did not name it was someone else's: the turn's own
    // changes start after the last of those.
    const lastUnsure = byStart.findLastIndex((touch) => touch.unsure !== undefined);
    const first = byStart[lastUnsure + 1] ?? last;
    changes.set(key, { before: first.before, after: last.after });
  }
  return changes;
}
