import { createHash } from "node:crypto";
import { lstat, mkdir, readFile, readlink, rm, rmdir, symlink } from "node:fs/promises";
import { dirname } from "node:path";
import { atomicWrite, ownerForNew } from "./atomic-write.ts";
import {
  type BeforeImage,
  dropCheckpoints,
  loadCheckpoints,
  readBlob,
  shadowFor,
  type TurnCheckpoint,
} from "./checkpoints.ts";
import { sha256 } from "./ledger.ts";
import type { ShadowGit, SnapshotLimits, TreeEntry } from "./shadow-git.ts";
import { createWorkspace, type Workspace } from "./workspace.ts";

/** How a restored file changed back. */
export type UndoAction = "modified" | "deleted again" | "re-created";

/** What `undo` did, with the plain text to show. */
export interface UndoReport {
  /** The sentence(s) to show the user. */
  text: string;
  /** Turn numbers undone, oldest first. */
  turns: number[];
  restored: Array<{ path: string; action: UndoAction }>;
  /** What could not be restored and why; `path` is null for a general limit (e.g. bash without a snapshot). */
  failed: Array<{ path: string | null; reason: string }>;
  /** Limits worth knowing that need no action, e.g. that snapshots leave out ignored files. */
  notes: string[];
}

/** Where the checkpoints are and how many mutating turns to undo. */
export interface UndoOptions {
  workspace: string;
  checkpointDir: string;
  /** How many of the most recent mutating turns to undo (at least 1). */
  turns: number;
  allowedPaths?: string[];
  /** nex's own data directories, left out of snapshots (see ToolHostOptions.privatePaths). */
  privatePaths?: string[];
  /** Environment for git (default: this process's). */
  env?: Record<string, string | undefined>;
  limits?: Partial<SnapshotLimits>;
}

/** A file state a turn left or found: absent, a snapshot entry, a saved before-image, or a known hash. */
type State =
  | { type: "absent"; createdDirs: string[] }
  /** It existed before the turn, but the snapshot left it out (ignored or too large): never deleted. */
  | { type: "unrecorded" }
  | { type: "tree"; entry: TreeEntry }
  | { type: "image"; blob: string; mode: number | null }
  | { type: "hash"; sha256: string };

/** What is at a path now. */
type Current =
  | { type: "absent" }
  | { type: "file"; bytes: Buffer; mode: number; uid: number; gid: number }
  | { type: "link"; target: string };

const ABSENT: State = { type: "absent", createdDirs: [] };

function gitBlobId(bytes: Buffer): string {
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

async function current(abs: string): Promise<Current> {
  const info = await lstat(abs).catch(() => null);
  if (!info) return { type: "absent" };
  if (info.isSymbolicLink()) return { type: "link", target: await readlink(abs) };
  if (info.isDirectory()) throw new Error("a directory is there now");
  return {
    type: "file",
    bytes: await readFile(abs),
    mode: info.mode & 0o7777,
    uid: info.uid,
    gid: info.gid,
  };
}

function matches(now: Current, state: State): boolean {
  if (state.type === "absent") return now.type === "absent";
  if (state.type === "unrecorded") return false;
  if (now.type === "absent") return false;
  if (state.type === "tree") {
    if (state.entry.mode === "120000")
      return now.type === "link" && gitBlobId(Buffer.from(now.target)) === state.entry.sha;
    return now.type === "file" && gitBlobId(now.bytes) === state.entry.sha;
  }
  if (now.type !== "file") return false;
  return sha256(now.bytes) === (state.type === "image" ? state.blob : state.sha256);
}

interface Restorer {
  ws: Workspace;
  shadow: ShadowGit;
  checkpointDir: string;
}

async function restore(r: Restorer, path: string, state: State, now: Current): Promise<void> {
  const target = await r.ws.resolve(path);
  if (state.type === "absent") {
    await rm(target.abs, { force: true });
    for (const dir of [...state.createdDirs].reverse()) {
      const resolved = await r.ws.resolve(dir).catch(() => null);
      if (resolved?.exists) await rmdir(resolved.abs).catch(() => {});
    }
    return;
  }
  if (state.type === "hash" || state.type === "unrecorded")
    throw new Error("its earlier content was not saved");
  await mkdir(dirname(target.abs), { recursive: true });
  if (state.type === "tree" && state.entry.mode === "120000") {
    const link = (await r.shadow.readBlob(state.entry.sha)).toString("utf8");
    await rm(target.abs, { force: true });
    await symlink(link, target.abs);
    return;
  }
  const bytes =
    state.type === "tree"
      ? await r.shadow.readBlob(state.entry.sha)
      : await readBlob(r.checkpointDir, state.blob);
  const keep = now.type === "file" ? now.mode : 0o644;
  const mode =
    state.type === "image"
      ? (state.mode ?? keep)
      : state.entry.mode === "100755"
        ? 0o755
        : keep & ~0o111;
  if (now.type === "link") await rm(target.abs, { force: true });
  // The restored file keeps the owner and group of the file it replaces (or, recreated, those of its directory).
  const owner =
    now.type === "file" ? { uid: now.uid, gid: now.gid } : ownerForNew(dirname(target.abs));
  await atomicWrite(target.abs, bytes, { mode, ...(owner ? { owner } : {}) });
}

interface TurnChange {
  before: State;
  /** What the turn left; null when it is not known (the change was not confirmed). */
  after: State | null;
}

function parentsAbsentFrom(path: string, tree: Map<string, TreeEntry>): string[] {
  const dirs: string[] = [];
  const known = new Set<string>();
  for (const key of tree.keys()) for (let d = dirname(key); d !== "."; d = dirname(d)) known.add(d);
  for (let d = dirname(path); d !== "." && d !== "/" && !known.has(d); d = dirname(d))
    dirs.unshift(d);
  return dirs;
}

/** Every path the turn changed, with its state before and after the turn. */
async function changesOf(
  checkpoint: TurnCheckpoint,
  shadow: ShadowGit,
): Promise<Map<string, TurnChange>> {
  const changes = new Map<string, TurnChange>();
  const { snapshot, after } = checkpoint;
  const images = new Map(checkpoint.files.map((image) => [image.path, image]));
  const imageBefore = (image: BeforeImage): State =>
    image.existed
      ? { type: "image", blob: image.blob ?? "", mode: image.mode ?? null }
      : { type: "absent", createdDirs: image.createdDirs ?? [] };
  // Paths the snapshots cover: for them a before-image saved after the turn's first command may
  // hold that command's work, so the snapshot decides. Elsewhere the image is all there is.
  const covered = new Set<string>();
  if (snapshot.type === "taken" && after?.type === "taken") {
    const [before, afterTree, diff] = await Promise.all([
      shadow.listTree(snapshot.commit),
      shadow.listTree(after.tree),
      shadow.changes(snapshot.commit, after.tree),
    ]);
    for (const path of [...before.keys(), ...afterTree.keys()]) covered.add(path);
    // Not in the snapshot is not the same as absent: an ignored or too large file was left out.
    const { skipped, ignored } = snapshot;
    const leftOut = (path: string): boolean =>
      skipped.includes(path) ||
      ignored === null ||
      (ignored ?? []).some((entry) =>
        entry.endsWith("/") ? path.startsWith(entry) : entry === path,
      );
    for (const { path } of diff) {
      const was = before.get(path);
      const is = afterTree.get(path);
      if (was?.mode === "160000" || is?.mode === "160000") continue;
      const image = images.get(path);
      // An image saved before the first command predates the snapshot, so it wins for `before`.
      changes.set(path, {
        before:
          image && !image.afterSnapshot
            ? imageBefore(image)
            : was
              ? { type: "tree", entry: was }
              : leftOut(path)
                ? { type: "unrecorded" }
                : { type: "absent", createdDirs: parentsAbsentFrom(path, before) },
        after: is ? { type: "tree", entry: is } : ABSENT,
      });
    }
  }
  for (const image of checkpoint.files) {
    if (changes.has(image.path)) continue;
    if (image.afterSnapshot && covered.has(image.path)) continue;
    changes.set(image.path, {
      before: imageBefore(image),
      after: image.afterHash ? { type: "hash", sha256: image.afterHash } : null,
    });
  }
  return changes;
}

function limitsNote(selected: TurnCheckpoint[]): { failed: string[]; notes: string[] } {
  const failed: string[] = [];
  const notes: string[] = [];
  let ignoredNote = false;
  for (const checkpoint of selected) {
    if (checkpoint.commands.length === 0) continue;
    const usable = checkpoint.snapshot.type === "taken" && checkpoint.after?.type === "taken";
    if (!usable) {
      const why =
        checkpoint.snapshot.type === "unavailable"
          ? checkpoint.snapshot.reason
          : checkpoint.after?.type === "unavailable"
            ? checkpoint.after.reason
            : "the snapshot after it is missing";
      const commands = checkpoint.commands
        .map((c) => `\`${c.length > 60 ? `${c.slice(0, 60)}…` : c}\``)
        .join(", ");
      failed.push(
        `changes bash made in turn ${checkpoint.turn} (${commands}) to files nex did not write itself: no workspace snapshot (${why})`,
      );
      continue;
    }
    ignoredNote = true;
  }
  if (ignoredNote) {
    notes.push(
      "Snapshots leave out files ignored by .gitignore and files over the size limit; changes bash made to those, if any, were not undone.",
    );
  }
  return { failed, notes };
}

function describe(
  report: Omit<UndoReport, "text">,
  first: TurnCheckpoint,
  requested: number,
  available: number,
): string {
  const parts: string[] = [];
  if (requested > available) {
    parts.push(
      `Only ${available} ${available === 1 ? "turn has" : "turns have"} recorded changes; undoing ${available === 1 ? "it" : "all of them"}.`,
    );
  }
  if (report.restored.length === 0) {
    parts.push(`No file needed restoring to its state before turn ${first.turn}.`);
  } else {
    const list = report.restored.map((r) => `${r.path} (${r.action})`).join(", ");
    parts.push(
      `Restored ${report.restored.length} ${report.restored.length === 1 ? "file" : "files"} to before turn ${first.turn}: ${list}.`,
    );
  }
  if (report.failed.length > 0) {
    parts.push(
      `Could not restore: ${report.failed.map((f) => (f.path ? `${f.path} (${f.reason})` : f.reason)).join("; ")}.`,
    );
  }
  for (const note of report.notes) parts.push(`Note: ${note}`);
  return parts.join(" ");
}

/**
 * Reverts the last `turns` mutating turns, newest first, from the checkpoint store on disk (so `nex undo`
 * works from a new process). A file is put back only while it still holds what the turn left there, so
 * changes made outside nex since are never overwritten; the report says what was restored and what not.
 */
export async function undoWorkspace(options: UndoOptions): Promise<UndoReport> {
  const all = await loadCheckpoints(options.checkpointDir);
  if (all.length === 0) {
    return {
      text: "Nothing to undo: no file changes were recorded in this session.",
      turns: [],
      restored: [],
      failed: [],
      notes: [],
    };
  }
  const count = Math.max(1, Math.floor(options.turns));
  const selected = all.slice(-count);
  const first = selected[0] as TurnCheckpoint;
  const ws = await createWorkspace(
    options.workspace,
    options.allowedPaths ?? [],
    options.privatePaths ?? [],
  );
  const shadow = shadowFor({
    checkpointDir: options.checkpointDir,
    workspace: ws,
    env: options.env ?? process.env,
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const restorer: Restorer = { ws, shadow, checkpointDir: options.checkpointDir };
  const initial = new Map<string, boolean>();
  const touched = new Set<string>();
  const failed = new Map<string, string>();
  let ioErrors = 0;
  for (const checkpoint of [...selected].reverse()) {
    const changes = await changesOf(checkpoint, shadow);
    for (const [path, change] of [...changes.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
      if (failed.has(path)) continue;
      if (change.before.type === "unrecorded") {
        failed.set(
          path,
          `it existed before turn ${checkpoint.turn} but the snapshot left it out (ignored by .gitignore or over the size limit); left as it is`,
        );
        continue;
      }
      try {
        const target = await ws.resolve(path);
        const now = await current(target.abs);
        if (!initial.has(path)) initial.set(path, now.type !== "absent");
        if (matches(now, change.before)) continue;
        if (!change.after || !matches(now, change.after)) {
          failed.set(
            path,
            `changed since turn ${checkpoint.turn} by something else; left as it is so that no later work is lost`,
          );
          continue;
        }
        await restore(restorer, path, change.before, now);
        touched.add(path);
      } catch (error) {
        ioErrors += 1;
        failed.set(path, (error as Error).message.replace(/\.$/, ""));
      }
    }
  }
  const restored: UndoReport["restored"] = [];
  for (const path of [...touched].sort()) {
    const existedBefore = initial.get(path) ?? false;
    const existsNow = (await lstat((await ws.resolve(path)).abs).catch(() => null)) !== null;
    if (existedBefore && !existsNow) restored.push({ path, action: "deleted again" });
    else if (!existedBefore && existsNow) restored.push({ path, action: "re-created" });
    else if (existsNow) restored.push({ path, action: "modified" });
  }
  const failures: UndoReport["failed"] = [...failed.entries()].map(([path, reason]) => ({
    path,
    reason,
  }));
  const limits = limitsNote(selected);
  for (const reason of limits.failed) failures.push({ path: null, reason });
  if (ioErrors === 0)
    await dropCheckpoints(
      options.checkpointDir,
      selected.map((c) => c.seq),
    );
  const report = {
    turns: selected.map((c) => c.turn),
    restored,
    failed: failures,
    notes: limits.notes,
  };
  return { ...report, text: describe(report, first, count, selected.length) };
}
