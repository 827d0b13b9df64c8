import { lstatSync, readlinkSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import { ToolFailure } from "../tool-failure.ts";

/** A path after the guard: symlinks followed, known to be inside the workspace or an allowed path. */
export interface ResolvedPath {
  /** Absolute path with every symlink resolved (textually past the last existing component). */
  abs: string;
  /** What to show: relative to the workspace root when inside it, else absolute. */
  display: string;
  exists: boolean;
  /** True when the path is inside an allowed path rather than the workspace. */
  outside: boolean;
}

/** The workspace guard: the only way tools turn a model-given path into a filesystem path. */
export interface Workspace {
  /** The realpath of the workspace root. */
  readonly root: string;
  resolve(input: string): Promise<ResolvedPath>;
  /** As `resolve`, and also a stored result (`@results/…`), which only reading tools may open. */
  resolveForRead(input: string): Promise<ResolvedPath>;
  /** Shows an absolute path the way results do. */
  display(abs: string): string;
  /** True for paths inside nex's own data (journals, undo checkpoints) kept in the workspace. */
  isPrivate(abs: string): boolean;
  /** nex's own data directories, resolved. */
  readonly privatePaths: readonly string[];
}

const MAX_LINKS = 40;

interface Walked {
  path: string;
  exists: boolean;
}

/**
 * Resolves `input` component by component like the kernel does, following each symlink it meets,
 * and continues textually past a missing component, so a dangling link's target counts. A `..` that
 * climbs back out of the missing part resumes the physical walk: `nope/../link` is `link` followed.
 * Uses synchronous calls: a few lstat calls cost less than as many hand-offs to the thread pool.
 */
export async function resolvePhysical(base: string, input: string): Promise<Walked> {
  const queue = input.split("/");
  let current = isAbsolute(input) ? "/" : base;
  // Components below `current` that do not exist: none of them can be a symlink.
  const missing: string[] = [];
  let links = 0;
  while (queue.length > 0) {
    const name = queue.shift() ?? "";
    if (name === "" || name === ".") continue;
    if (missing.length > 0) {
      if (name === "..") missing.pop();
      else missing.push(name);
      continue;
    }
    if (name === "..") {
      current = join(current, "..");
      continue;
    }
    const next = join(current, name);
    let isLink = false;
    try {
      // A missing component is common (a file about to be created): answered without an exception.
      const info = lstatSync(next, { throwIfNoEntry: false });
      if (!info) {
        missing.push(name);
        continue;
      }
      isLink = info.isSymbolicLink();
    } catch (error) {
      if (!isMissing(error)) throw error;
      missing.push(name);
      continue;
    }
    if (!isLink) {
      current = next;
      continue;
    }
    links += 1;
    if (links > MAX_LINKS) {
      throw new ToolFailure("failed", `Too many levels of symbolic links in ${input}.`);
    }
    const target = readlinkSync(next);
    if (isAbsolute(target)) current = "/";
    queue.unshift(...target.split("/"));
  }
  return { path: join(current, ...missing), exists: missing.length === 0 };
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/** True when a path relative to some root (as `path.relative` gives it) lies outside that root. */
export function climbsOut(rel: string): boolean {
  return rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

/** True when `path` is `root` or below it (both absolute and normalised). */
export function isWithin(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** Options of the guard: the root and the user's allowed outside paths, both resolved once. */
export interface WorkspaceOptions {
  root: string;
  allowedPaths?: string[];
  /** nex's own data directories; inside the workspace (`--data-dir workspace`), tools keep out. */
  privatePaths?: string[];
  /** The file behind a stored result's name (`@results/…`), or null for any other path. */
  storedResult?: (input: string) => string | null;
}

/** Builds the guard. `root` and allowed paths must already be realpath'ed (see `createWorkspace`). */
export function workspaceGuard({
  root,
  allowedPaths = [],
  privatePaths = [],
  storedResult = () => null,
}: WorkspaceOptions): Workspace {
  const display = (abs: string): string => {
    if (abs === root) return ".";
    return isWithin(root, abs) ? relative(root, abs) : abs;
  };
  const isPrivate = (abs: string): boolean => privatePaths.some((dir) => isWithin(dir, abs));
  const guard: Workspace = {
    root,
    display,
    isPrivate,
    privatePaths,
    async resolveForRead(input) {
      let stored: string | null;
      try {
        stored = storedResult(input);
      } catch (error) {
        // A real file of that name in the workspace is what the model means.
        const real = await guard.resolve(input).catch(() => null);
        if (real?.exists) return real;
        throw new ToolFailure("not_found", (error as Error).message);
      }
      if (stored) return { abs: stored, display: input, exists: true, outside: true };
      return guard.resolve(input);
    },
    async resolve(input) {
      if (input.includes("\0")) {
        throw new ToolFailure(
          "invalid_arguments",
          `The path ${JSON.stringify(input)} contains a NUL byte, which no file name can hold. Re-emit the call with the path without it.`,
        );
      }
      const walked = await resolvePhysical(root, input);
      if (isPrivate(walked.path)) {
        // The journal and the undo checkpoints: a model that changed them could rewrite history or undo.
        throw new ToolFailure(
          "outside_workspace",
          `${input} is inside nex's own session data (its journals, undo checkpoints and config, or the chat folder it serves, where what is written speaks as the user), which tools do not read or change. Use a path elsewhere in the workspace.`,
        );
      }
      if (isWithin(root, walked.path)) {
        return {
          abs: walked.path,
          display: display(walked.path),
          exists: walked.exists,
          outside: false,
        };
      }
      if (allowedPaths.some((allowed) => isWithin(allowed, walked.path))) {
        return { abs: walked.path, display: walked.path, exists: walked.exists, outside: true };
      }
      throw new ToolFailure(
        "outside_workspace",
        `${input} resolves to ${walked.path}, which is outside the workspace ${root}. ` +
          "nex only touches files inside the workspace; use a path inside it, or ask the user to allow that location.",
      );
    },
  };
  return guard;
}

/** Resolves the root and allowed paths (following symlinks, tolerating missing ones) and builds the guard. */
export async function createWorkspace(
  root: string,
  allowedPaths: string[] = [],
  privatePaths: string[] = [],
  storedResult?: (input: string) => string | null,
): Promise<Workspace> {
  const resolved = await resolvePhysical("/", root);
  if (!resolved.exists) throw new Error(`the workspace directory ${root} does not exist`);
  const realRoot = resolved.path;
  const realAllowed: string[] = [];
  for (const allowed of allowedPaths)
    realAllowed.push((await resolvePhysical(realRoot, allowed)).path);
  const realPrivate: string[] = [];
  for (const path of privatePaths) realPrivate.push((await resolvePhysical(realRoot, path)).path);
  return workspaceGuard({
    root: realRoot,
    allowedPaths: realAllowed,
    privatePaths: realPrivate,
    ...(storedResult ? { storedResult } : {}),
  });
}
