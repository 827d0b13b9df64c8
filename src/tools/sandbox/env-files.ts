// The `.env*` files of a folder, for the sandbox to hide. Every command's policy asks again for the
// folders above the workspace, and one of them may be a crowded /tmp or ~/src: a folder is read again
// only when it may have changed since. Creating, removing or renaming an entry moves the folder's
// modification and change times, so a listing is reused while both (and its inode) are as they were
// and the last change came well before the listing was read: a change in the same tick of a coarse
// clock could otherwise leave the times as they were.
import { type BigIntStats, readdirSync, statSync } from "node:fs";

interface Listing {
  ino: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  /** Whether the folder had been still for a while when it was read, so its times can be trusted. */
  settled: boolean;
  names: string[];
}

// Longer than any file system's timestamp granularity (FAT's 2 s).
const SETTLED_NS = 3_000_000_000n;
const listings = new Map<string, Listing>();
const KEPT = 64;

/** The names starting with `.env` in `dir`; null when it cannot be read. */
export function envNamesIn(dir: string): string[] | null {
  let info: BigIntStats;
  try {
    info = statSync(dir, { bigint: true });
  } catch {
    return null;
  }
  const known = listings.get(dir);
  if (
    known?.settled &&
    known.ino === info.ino &&
    known.mtimeNs === info.mtimeNs &&
    known.ctimeNs === info.ctimeNs
  )
    return known.names;
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.startsWith(".env"));
  } catch {
    return null;
  }
  const now = BigInt(Date.now()) * 1_000_000n;
  const settled = now - info.mtimeNs > SETTLED_NS && now - info.ctimeNs > SETTLED_NS;
  if (!listings.has(dir) && listings.size >= KEPT)
    listings.delete(listings.keys().next().value as string);
  listings.set(dir, {
    ino: info.ino,
    mtimeNs: info.mtimeNs,
    ctimeNs: info.ctimeNs,
    settled,
    names,
  });
  return names;
}
