import {
  closeSync,
  fdatasyncSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { syncDirectory } from "../../files/index.ts";
import type { TurnCheckpoint } from "./checkpoint-record.ts";

/**
 * One line of a store's log (`checkpoints.jsonl`). A store is an append-only log rather than a file
 * per checkpoint: saving is one append and one fdatasync, where a new file costs a create, an fsync,
 * a rename and a directory fsync, several times the CPU; and nothing that was saved is rewritten.
 */
type LogRecord =
  /** The whole state of a turn's checkpoint; the last one of a `seq` wins. */
  | { type: "checkpoint"; checkpoint: TurnCheckpoint }
  /** What nex left in a file after the save before it; appended without an fsync of its own. */
  | { type: "after"; seq: number; path: string; afterHash: string; at?: number }
  /** Checkpoints that were undone. */
  | { type: "dropped"; seqs: number[] }
  /** Checkpoints undone except for paths left alone as not surely theirs (`--include-unsure` still can). */
  | { type: "undone_except"; seqs: number[]; keys: string[] };

const LOG_NAME = "checkpoints.jsonl";

/** The checkpoints of a store, and the highest sequence number it ever used (undone ones too). */
export interface LoadedLog {
  checkpoints: TurnCheckpoint[];
  lastSeq: number;
  /** The highest prompt number it ever used. */
  lastPrompt: number;
}

/** Reads a store's log; lines torn by a crash mid-append are skipped. */
export function readCheckpointLog(checkpointDir: string): LoadedLog {
  let text: string;
  try {
    text = readFileSync(join(checkpointDir, LOG_NAME), "utf8");
  } catch {
    return { checkpoints: [], lastSeq: 0, lastPrompt: 0 };
  }
  const bySeq = new Map<number, TurnCheckpoint>();
  let lastSeq = 0;
  let lastPrompt = 0;
  for (const line of text.split("\n")) {
    if (line === "") continue;
    let record: LogRecord;
    try {
      record = JSON.parse(line) as LogRecord;
    } catch {
      continue;
    }
    if (record.type === "checkpoint") {
      bySeq.set(record.checkpoint.seq, record.checkpoint);
      lastSeq = Math.max(lastSeq, record.checkpoint.seq);
      lastPrompt = Math.max(lastPrompt, record.checkpoint.prompt ?? 0);
    } else if (record.type === "after") {
      const image = bySeq.get(record.seq)?.files.find((file) => file.path === record.path);
      if (image) {
        image.afterHash = record.afterHash;
        if (record.at !== undefined) image.lastAt = record.at;
      }
    } else if (record.type === "dropped") {
      for (const seq of record.seqs) bySeq.delete(seq);
    } else if (record.type === "undone_except") {
      for (const seq of record.seqs) {
        const checkpoint = bySeq.get(seq);
        if (checkpoint) checkpoint.undoneExcept = record.keys;
      }
    }
  }
  return {
    checkpoints: [...bySeq.values()].sort((a, b) => a.seq - b.seq),
    lastSeq,
    lastPrompt,
  };
}

/** Appends to a store's log; `durable` makes the record reach the disk before this returns. */
export function appendCheckpointLog(
  checkpointDir: string,
  record: LogRecord,
  options: { durable: boolean },
): void {
  const path = join(checkpointDir, LOG_NAME);
  let fd: number;
  try {
    fd = openSync(path, "a+", 0o600);
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOENT") throw error;
    mkdirSync(checkpointDir, { recursive: true });
    fd = openSync(path, "a+", 0o600);
  }
  let size: number;
  try {
    size = fstatSync(fd).size;
    // A line torn by a crash is closed first, so that this record starts on a line of its own.
    let torn = false;
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      torn = last[0] !== 0x0a;
    }
    const bytes = Buffer.from(`${torn ? "\n" : ""}${JSON.stringify(record)}\n`);
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    if (options.durable) fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
  // A new log's directory entry must be durable too, or a crash could lose the file with its records.
  if (size === 0) syncDirectory(checkpointDir);
}

export type { LogRecord };
