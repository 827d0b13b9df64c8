import { createHash } from "node:crypto";
import type { ReadRecord } from "../../protocol/index.ts";

/** sha256 of bytes, hex: the identity of a file's content in the ledger. */
export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** What the session knows of each file it read or wrote; the basis of read-before-write. */
export interface ReadLedger {
  get(path: string): ReadRecord | undefined;
  /**
   * Records that lines `from`..`to` (1-based, inclusive) of a file with this content were shown whole.
   * Ranges read of the same content add up: a file read in parts becomes completely known.
   */
  recordRead(
    record: Omit<ReadRecord, "complete">,
    range: { from: number; to: number; total: number },
  ): ReadRecord;
  /** Records content the session itself wrote (completely known) or edited (as known as before). */
  recordWrite(record: ReadRecord): ReadRecord;
  all(): ReadRecord[];
  /** Forgets every file: after `/clear` the model has seen none of them. */
  forget(): void;
}

interface Coverage {
  hash: string;
  ranges: Array<[number, number]>;
}

function merge(ranges: Array<[number, number]>): Array<[number, number]> {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [from, to] of sorted) {
    const last = out[out.length - 1];
    if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else out.push([from, to]);
  }
  return out;
}

/** A ledger, optionally restored from the journal on resume. */
export function createLedger(restored: ReadRecord[] = []): ReadLedger {
  const records = new Map<string, ReadRecord>();
  const coverage = new Map<string, Coverage>();
  for (const record of restored) records.set(record.path, { ...record });
  return {
    get: (path) => records.get(path),
    recordRead(base, { from, to, total }) {
      const previous = records.get(base.path);
      const known = coverage.get(base.path);
      const ranges =
        known && known.hash === base.hash
          ? [...known.ranges, [from, to] as [number, number]]
          : [[from, to] as [number, number]];
      const merged = merge(ranges);
      coverage.set(base.path, { hash: base.hash, ranges: merged });
      const first = merged[0];
      const covered =
        merged.length === 1 && first !== undefined && first[0] <= 1 && first[1] >= total;
      const stillComplete = previous?.complete === true && previous.hash === base.hash;
      const record: ReadRecord = { ...base, complete: covered || stillComplete };
      records.set(base.path, record);
      return record;
    },
    recordWrite(record) {
      coverage.delete(record.path);
      records.set(record.path, { ...record });
      return record;
    },
    all: () => [...records.values()].map((record) => ({ ...record })),
    forget() {
      records.clear();
      coverage.clear();
    },
  };
}
