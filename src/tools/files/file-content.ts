import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readFileSync,
  type Stats,
  statSync,
} from "node:fs";
import { open, readFile, stat } from "node:fs/promises";
import { formatBytes } from "../../protocol/index.ts";
import { ToolFailure } from "../tool-failure.ts";
import { SYNC_WRITE_BYTES } from "./atomic-write.ts";
import { sha256 } from "./ledger.ts";

/** A file as it is on disk now. */
export interface FileState {
  bytes: Buffer;
  /** Permission bits. */
  mode: number;
  /** Owner and group, kept by a replacement. */
  uid: number;
  gid: number;
  /** Names the file has (hard links); a replacement takes only the one it was written through. */
  links: number;
  mtimeMs: number;
  size: number;
  hash: string;
}

/** What a write or edit reads back from disk after committing. */
export interface WrittenFacts {
  bytes: number;
  lines: number;
  hash: string;
  mtimeMs: number;
}

/**
 * The metadata of the file at `abs`, or null when nothing is there. A directory, FIFO, socket or device
 * is refused before anything opens it: opening a FIFO would wait for a writer forever.
 */
export function statRegular(abs: string, display: string): Stats | null {
  let info: Stats | undefined;
  try {
    info = statSync(abs, { throwIfNoEntry: false });
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return null;
    throw error;
  }
  if (!info) return null;
  if (info.isDirectory()) {
    throw new ToolFailure(
      "failed",
      `${display} is a directory, not a file. Use list_dir to see what it holds.`,
    );
  }
  if (!info.isFile()) throw notRegular(display);
  return info;
}

function notRegular(display: string): ToolFailure {
  return new ToolFailure(
    "failed",
    `${display} is not a regular file (a FIFO, socket or device); nex reads and writes regular files only. ` +
      "Leave it alone, or ask the user how to use it.",
  );
}

// O_NONBLOCK: should the path have become a FIFO since the stat, the open returns at once and fstat tells.
const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/** Reads a file's bytes and metadata, or null when nothing is there. Anything but a regular file is an error. */
export async function readState(
  abs: string,
  display: string,
  signal?: AbortSignal,
): Promise<FileState | null> {
  const info = statRegular(abs, display);
  if (!info) return null;
  // A small file is read in one go (see SYNC_WRITE_BYTES); a large one asynchronously, so it can be interrupted.
  let bytes: Buffer;
  if (info.size <= SYNC_WRITE_BYTES) {
    const fd = openSync(abs, READ_FLAGS);
    try {
      if (!fstatSync(fd).isFile()) throw notRegular(display);
      bytes = readFileSync(fd);
    } finally {
      closeSync(fd);
    }
  } else {
    const handle = await open(abs, READ_FLAGS);
    try {
      if (!(await handle.stat()).isFile()) throw notRegular(display);
      bytes = await handle.readFile({ signal });
    } finally {
      await handle.close();
    }
  }
  return {
    bytes,
    mode: info.mode & 0o7777,
    uid: info.uid,
    gid: info.gid,
    links: info.nlink,
    mtimeMs: info.mtimeMs,
    size: bytes.length,
    hash: sha256(bytes),
  };
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** True when the bytes are text nex can show and change: valid UTF-8 with no NUL in the first 8 KiB. */
export function isText(bytes: Uint8Array): boolean {
  if (bytes.subarray(0, 8192).includes(0)) return false;
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Lines as an editor counts them: a final line without a newline still counts. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let lines = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines += 1;
  return text.endsWith("\n") ? lines : lines + 1;
}

/** Unicode characters (code points), the unit of the content-loss guard. */
export function countChars(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0xdc00 || code > 0xdfff) count += 1;
  }
  return count;
}

/** The short hash shown to the model and the user. */
export function shortHash(hash: string): string {
  return hash.slice(0, 12);
}

/**
 * Reads a just-written file back and checks it is exactly what was meant to be written.
 * A mismatch is reported as a failure with both sizes: the result never claims bytes that are not there.
 */
export async function verifyWritten(
  abs: string,
  display: string,
  expected: Uint8Array,
  readBack?: (abs: string) => Promise<Buffer>,
): Promise<WrittenFacts> {
  const small = expected.length <= SYNC_WRITE_BYTES;
  const onDisk = readBack ? await readBack(abs) : small ? readFileSync(abs) : await readFile(abs);
  const info = small ? statSync(abs) : await stat(abs);
  if (!onDisk.equals(expected)) {
    throw new ToolFailure(
      "failed",
      `Wrote ${display} but reading it back gave ${formatBytes(onDisk.length)} instead of the ${formatBytes(expected.length)} sent; ` +
        "something else changed the file at the same moment. Read it again before any further change.",
    );
  }
  return {
    bytes: onDisk.length,
    lines: countLines(onDisk.toString("utf8")),
    hash: sha256(onDisk),
    mtimeMs: info.mtimeMs,
  };
}
