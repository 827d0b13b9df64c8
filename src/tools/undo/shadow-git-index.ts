// The tree of the shadow index as `git write-tree` would answer it, read from the index file itself
// when git's own cache of it (the index's cache-tree, `TREE`) is whole: no git process. git drops
// every part of that cache that an index change touches (`git add -A` staging a changed, created,
// deleted or racily-timed file), so a whole cache is exactly the tree `write-tree` would return;
// anything else (no cache yet, a part dropped, a layout this reader does not know) answers null and
// the caller asks git.
import { readFileSync } from "node:fs";

const SHA1_BYTES = 20;
// ctime, mtime (8 each), dev, ino, mode, uid, gid, size (4 each), the object id, 16 bits of flags.
const FIXED_ENTRY_BYTES = 40 + SHA1_BYTES + 2;
const EXTENDED_FLAG = 0x4000;

/** The root tree of the index at `path`, when its cache-tree is whole; else null. */
export function cachedIndexTree(path: string): string | null {
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch {
    return null;
  }
  if (data.length < 12 + SHA1_BYTES || data.toString("latin1", 0, 4) !== "DIRC") return null;
  const version = data.readUInt32BE(4);
  // Version 4 compresses paths; git writes 2, or 3 for extended flags (never asked for here).
  if (version !== 2 && version !== 3) return null;
  const entries = data.readUInt32BE(8);
  const end = data.length - SHA1_BYTES;
  let offset = 12;
  for (let i = 0; i < entries; i++) {
    if (offset + FIXED_ENTRY_BYTES > end) return null;
    const flags = data.readUInt16BE(offset + FIXED_ENTRY_BYTES - 2);
    const nameStart = offset + FIXED_ENTRY_BYTES + (version === 3 && flags & EXTENDED_FLAG ? 2 : 0);
    const nameEnd = data.indexOf(0, nameStart);
    if (nameEnd < 0 || nameEnd >= end) return null;
    // Each entry is NUL-padded (one to eight) to a multiple of eight bytes.
    offset += (nameEnd - offset + 8) & ~7;
  }
  while (offset + 8 <= end) {
    const signature = data.toString("latin1", offset, offset + 4);
    const size = data.readUInt32BE(offset + 4);
    const body = offset + 8;
    if (body + size > end) return null;
    // A split or sparse index keeps entries elsewhere: not read here.
    if (signature === "link" || signature === "sdir") return null;
    if (signature === "TREE") return rootOf(data.subarray(body, body + size), entries);
    offset = body + size;
  }
  return null;
}

/** The root entry of a `TREE` extension: `\0<entries> <subtrees>\n<id>`, when valid and whole. */
function rootOf(tree: Buffer, indexEntries: number): string | null {
  if (tree[0] !== 0) return null;
  const newline = tree.indexOf(0x0a, 1);
  if (newline < 0) return null;
  const match = /^(-?\d+) \d+$/.exec(tree.toString("latin1", 1, newline));
  // -1: invalidated by a change since the tree was last written. A count other than the index's
  // would be a tree of part of it.
  if (!match || Number(match[1]) !== indexEntries) return null;
  if (newline + 1 + SHA1_BYTES > tree.length) return null;
  return tree.toString("hex", newline + 1, newline + 1 + SHA1_BYTES);
}
