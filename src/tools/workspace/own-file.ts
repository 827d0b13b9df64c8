// Files nex reads on its own, not at the model's request (the workspace's AGENTS.md, the config file):
// read with the same care as the tools' reads. Only a regular file is read (a FIFO would block nex
// before its first request, `/dev/zero` would fill its memory), and at most `limit` bytes of it.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { createWorkspace } from "./workspace.ts";

/** What reading one of nex's own files found. */
export type OwnFileRead =
  | { type: "missing" }
  /** Not read; `reason` completes "`path` was not read: ...". */
  | { type: "refused"; reason: string }
  /** `size` is the file's whole size; `truncated` when only the first `limit` bytes are in `text` (and `bytes`). */
  | { type: "read"; text: string; size: number; truncated: boolean; bytes: Buffer };

// O_NONBLOCK: opening a FIFO returns at once (fstat then refuses it) instead of waiting for a writer.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/** Reads at most `limit` bytes of a regular file; anything else is refused, never waited on. */
export function readOwnFile(path: string, limit: number, flags = 0): OwnFileRead {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS | flags);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ENOENT") return { type: "missing" };
    if (code === "ELOOP") return { type: "refused", reason: "it became a symbolic link" };
    if (code === "ENXIO") return { type: "refused", reason: "it is a socket, not a regular file" };
    return { type: "refused", reason: `it cannot be opened (${code ?? (error as Error).message})` };
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile())
      return { type: "refused", reason: `it is ${kindOf(info)}, not a regular file` };
    const buffer = Buffer.alloc(Math.min(info.size, limit));
    let filled = 0;
    // A file that grows while being read is still read only up to `limit`.
    while (filled < buffer.length) {
      const n = readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (n === 0) break;
      filled += n;
    }
    const truncated = info.size > limit;
    const bytes = buffer.subarray(0, filled);
    let text = bytes.toString("utf8");
    // A cut through a multi-byte character leaves a replacement character: drop it.
    if (truncated) text = text.replace(/\uFFFD$/, "");
    return { type: "read", text, size: info.size, truncated, bytes };
  } catch (error) {
    return { type: "refused", reason: `it cannot be read (${(error as Error).message})` };
  } finally {
    closeSync(fd);
  }
}

/**
 * A file of the workspace nex reads on its own (`AGENTS.md`), through the workspace guard: a symlink
 * that leads outside the workspace (and outside the allowed paths) or into nex's data is refused.
 */
export async function readWorkspaceOwnFile(options: {
  workspace: string;
  name: string;
  limit: number;
  allowedPaths?: string[];
  privatePaths?: string[];
}): Promise<OwnFileRead> {
  let abs: string;
  try {
    const guard = await createWorkspace(
      options.workspace,
      options.allowedPaths ?? [],
      options.privatePaths ?? [],
    );
    const resolved = await guard.resolve(options.name);
    if (!resolved.exists) return { type: "missing" };
    abs = resolved.abs;
  } catch (error) {
    // The guard's words, less its advice to the model and its full stop.
    const message = (error as Error).message.replace(/\s*nex only touches.*$/s, "");
    return { type: "refused", reason: message.replace(/\.$/, "") };
  }
  // The guard resolved every link: a link appearing now, between the check and the open, is refused.
  return readOwnFile(abs, options.limit, constants.O_NOFOLLOW);
}

function kindOf(info: Stats): string {
  if (info.isDirectory()) return "a directory";
  if (info.isFIFO()) return "a named pipe (FIFO)";
  if (info.isCharacterDevice() || info.isBlockDevice()) return "a device";
  if (info.isSocket()) return "a socket";
  return "not a regular file";
}
