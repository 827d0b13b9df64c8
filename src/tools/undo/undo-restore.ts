// Putting paths back without ever losing a byte: nothing is written through a link (each folder on
// the way is checked with lstat, so a link the turn put in place of a folder is removed as the turn's
// change, never followed), what undo replaces or removes is first copied into the checkpoint store,
// and nothing is removed until everything undo writes back is safely in place.
import { createHash } from "node:crypto";
import { lstatSync, type Stats } from "node:fs";
import {
  chmod,
  lchown,
  lstat,
  mkdir,
  open,
  readdir,
  readFile,
  readlink,
  rename,
  rmdir,
  symlink,
  unlink,
} from "node:fs/promises";
import { bytesOfKey, displayKey, keyWithin, parentKey, sha256 } from "../files/index.ts";
import { readBlob } from "./checkpoints/index.ts";
import type { ShadowGit } from "./shadow-git.ts";
import type { State } from "./turn-changes.ts";

/** What is at a path now. */
export type Current =
  | { type: "absent" }
  | { type: "file"; bytes: Buffer; mode: number }
  | { type: "link"; target: Buffer }
  | { type: "dir"; mode: number };

/** Where undo works: the workspace root, the shadow repository, the store and where set-aside copies go. */
export interface RestoreContext {
  root: string;
  shadow: ShadowGit;
  checkpointDir: string;
  /** A fresh folder for what undo replaces or removes. */
  setAsideDir: string;
}

/** One step of an undo: write back a file or link, remove what the turn created, or reset a mode. */
export type Step =
  | { type: "write"; key: string; state: State; now: Current }
  | { type: "remove"; key: string; createdDirs: string[]; now: Current }
  | { type: "chmod"; key: string; mode: number; now: Current };

export const absBytes = (root: string, key: string): Buffer =>
  Buffer.concat([Buffer.from(root), Buffer.from("/"), bytesOfKey(key)]);

function gitBlobId(bytes: Buffer): string {
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

/** The folders on the way to `key`, outermost first. */
function ancestorsOf(key: string): string[] {
  const ancestors: string[] = [];
  for (let d = parentKey(key); d !== "."; d = parentKey(d)) ancestors.unshift(d);
  return ancestors;
}

/** The first folder on the way to `key` that is a link or not a folder, or null. */
export async function blockerOf(root: string, key: string): Promise<string | null> {
  for (const dir of ancestorsOf(key)) {
    const info = await lstat(absBytes(root, dir)).catch(() => null);
    if (!info) return null;
    if (!info.isDirectory()) return dir;
  }
  return null;
}

/** What is at `key` now, never following a link. */
export async function currentOf(root: string, key: string): Promise<Current> {
  const abs = absBytes(root, key.endsWith("/") ? key.slice(0, -1) : key);
  const info = await entryAt(root, key, abs);
  if (!info) return { type: "absent" };
  if (info.isSymbolicLink())
    return { type: "link", target: await readlink(abs, { encoding: "buffer" }) };
  if (info.isDirectory()) return { type: "dir", mode: info.mode & 0o7777 };
  return { type: "file", bytes: await readFile(abs), mode: info.mode & 0o7777 };
}

/**
 * Whether anything is at `key` now (what `currentOf` calls not absent), without reading it: a run's
 * changed files ask this of every path it created, so it is synchronous (no thread-pool round trips).
 */
export function presentAt(root: string, key: string): boolean {
  // Behind a link or a file where a folder was, the path is not in the workspace at all.
  // A folder that cannot be read counts as nothing there, as `currentOf` has it.
  for (const dir of ancestorsOf(key))
    if (!entryNow(absBytes(root, dir))?.isDirectory()) return false;
  return entryNow(absBytes(root, key.endsWith("/") ? key.slice(0, -1) : key)) !== null;
}

function entryNow(abs: Buffer): Stats | null {
  try {
    return lstatSync(abs, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

async function entryAt(root: string, key: string, abs: Buffer): Promise<Stats | null> {
  // Behind a link or a file where a folder was, the path is not in the workspace at all.
  if ((await blockerOf(root, key)) !== null) return null;
  return lstat(abs).catch(() => null);
}

/** Whether what is there now has the content of `state` (modes aside). */
export function sameContent(now: Current, state: State): boolean {
  switch (state.type) {
    case "absent":
      return now.type === "absent";
    case "unrecorded":
      return false;
    case "dir":
      return now.type === "dir";
    case "tree":
      if (state.entry.mode === "120000")
        return now.type === "link" && gitBlobId(now.target) === state.entry.sha;
      return now.type === "file" && gitBlobId(now.bytes) === state.entry.sha;
    case "image":
      return now.type === "file" && sha256(now.bytes) === state.blob;
    case "hash":
      return now.type === "file" && sha256(now.bytes) === state.sha256;
  }
}

/** The mode `state` gives, when it says one. */
export function modeOf(state: State): number | null {
  if (state.type === "tree" || state.type === "image" || state.type === "dir") return state.mode;
  return null;
}

const modeNow = (now: Current): number | null =>
  now.type === "file" || now.type === "dir" ? now.mode : null;

/** Whether `now` is exactly `state`, mode included where the state knows it. */
export function sameState(now: Current, state: State): boolean {
  if (!sameContent(now, state)) return false;
  const mode = modeOf(state);
  return mode === null || modeNow(now) === null || mode === modeNow(now);
}

/**
 * Who a restored file belongs to when nex runs as root (a container on a bind mount): the owner of
 * the file it replaces, or, recreated, the owner of its folder. Null when nothing needs changing.
 */
async function ownerOf(abs: Buffer, dir: Buffer): Promise<{ uid: number; gid: number } | null> {
  if (process.geteuid?.() !== 0) return null;
  const info = (await lstat(abs).catch(() => null)) ?? (await lstat(dir).catch(() => null));
  if (!info || (info.uid === 0 && info.gid === 0)) return null;
  return { uid: info.uid, gid: info.gid };
}

async function durableWrite(
  path: Buffer,
  bytes: Buffer,
  mode: number,
  owner: { uid: number; gid: number } | null = null,
): Promise<void> {
  const handle = await open(path, "wx", mode);
  try {
    await handle.writeFile(bytes);
    // chown clears set-id bits, so the mode is set after it.
    if (owner) await handle.chown(owner.uid, owner.gid);
    await handle.chmod(mode);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Copies what is at `key` into the set-aside folder (same relative path), durably, before it goes. */
async function setAside(ctx: RestoreContext, key: string, now: Current): Promise<void> {
  if (now.type === "absent" || now.type === "dir") return;
  const target = absBytes(ctx.setAsideDir, key);
  await mkdir(absBytes(ctx.setAsideDir, parentKey(key)), { recursive: true });
  if (now.type === "link") await symlink(now.target, target);
  else await durableWrite(target, now.bytes, now.mode & 0o777);
}

async function contentOf(ctx: RestoreContext, state: State): Promise<Buffer> {
  if (state.type === "tree") return ctx.shadow.readBlob(state.entry.sha);
  if (state.type === "image") return readBlob(ctx.checkpointDir, state.blob);
  throw new Error("its earlier content was not saved");
}

let tempCounter = 0;

/** Writes `state` back at `key`: into a temporary name beside it, then renamed into place. */
export async function writeBack(
  ctx: RestoreContext,
  step: Step & { type: "write" },
): Promise<void> {
  const { key, state, now } = step;
  if (now.type === "dir") throw new Error("a folder is there now");
  const blocker = await blockerOf(ctx.root, key);
  if (blocker !== null)
    throw new Error(`${displayKey(blocker)} is a link or a file now, not the folder it was`);
  const abs = absBytes(ctx.root, key);
  const dir = absBytes(ctx.root, parentKey(key));
  await mkdir(dir, { recursive: true });
  tempCounter += 1;
  const temp = Buffer.concat([dir, Buffer.from(`/.nex-undo-${process.pid}-${tempCounter}.tmp`)]);
  const bytes = await contentOf(ctx, state);
  const owner = await ownerOf(abs, dir);
  if (state.type === "tree" && state.entry.mode === "120000") {
    await symlink(bytes, temp);
    if (owner) await lchown(temp, owner.uid, owner.gid);
  } else await durableWrite(temp, bytes, modeOf(state) ?? 0o644, owner);
  try {
    await setAside(ctx, key, now);
    await rename(temp, abs);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
}

/** Removes what the turn created at `key` (a file or a link, never what a link points to), set aside first. */
export async function removeCreated(ctx: RestoreContext, key: string, now: Current): Promise<void> {
  if (now.type === "absent") return;
  if (now.type === "dir") throw new Error("a folder is there now");
  await setAside(ctx, key, now);
  await unlink(absBytes(ctx.root, key));
}

/** Removes the folders a change created, deepest first, when they are empty. */
export async function removeEmptyDirs(root: string, dirs: string[]): Promise<void> {
  for (const dir of [...dirs].sort((a, b) => b.length - a.length)) {
    const info = await lstat(absBytes(root, dir)).catch(() => null);
    if (info?.isDirectory()) await rmdir(absBytes(root, dir)).catch(() => {});
  }
}

/** Removes a folder and the folders in it when no file is left in any; true when it is gone. */
export async function removeEmptyTree(root: string, key: string): Promise<boolean> {
  const remove = async (abs: Buffer): Promise<boolean> => {
    const entries = await readdir(abs, { encoding: "buffer", withFileTypes: true }).catch(
      () => null,
    );
    if (entries === null) return false;
    let empty = true;
    for (const entry of entries) {
      if (!entry.isDirectory()) {
        empty = false;
        continue;
      }
      const child = Buffer.concat([abs, Buffer.from("/"), entry.name as unknown as Buffer]);
      if (!(await remove(child))) empty = false;
    }
    if (!empty) return false;
    return rmdir(abs).then(
      () => true,
      () => false,
    );
  };
  return remove(absBytes(root, key));
}

/** Resets a file's or a folder's mode (never through a link). */
export async function resetMode(root: string, key: string, mode: number): Promise<void> {
  const path = key.endsWith("/") ? key.slice(0, -1) : key;
  const info = await lstat(absBytes(root, path));
  if (info.isSymbolicLink()) throw new Error("a link is there now");
  await chmod(absBytes(root, path), mode);
}

/** Whether `key` lies under a path that `keys` holds (a link or file in the way of a folder). */
export function isUnder(key: string, keys: Iterable<string>): string | null {
  for (const other of keys) if (other !== key && keyWithin(other, key)) return other;
  return null;
}
