import { closeSync, existsSync, mkdirSync, openSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { formatBytes, formatCount } from "../../protocol/index.ts";

/** How the model names a stored result: a path `read_file` and `grep` accept and no write tool does. */
export const STORED_PREFIX = "@results/";
// Exactly the names the store makes (`<time>-<n>-<label>.txt`): never `.`, `..` or a path.
const STORED_NAME = /^@results\/([a-z0-9]+-\d+-[\w-]{1,40}\.txt)$/;

/** Most bytes one result keeps on disk; a result beyond it keeps its beginning and says so. */
export const MAX_STORED_BYTES = 256 * 2 ** 20;

/** A result kept whole on disk, by the name the model reads it with. */
export interface StoredResult {
  /** `@results/<name>`: what the model passes to read_file or grep. */
  name: string;
  path: string;
  bytes: number;
  /** False when the result was larger than MAX_STORED_BYTES and only its beginning was kept. */
  complete: boolean;
  /** Lines of the whole result, when counted as it was written. */
  lines?: number;
}

/** Output written to disk as it arrives, once it outgrows what a result may carry. */
export interface Spool {
  /** Takes every byte of output, in order. */
  write(chunk: Buffer): void;
  /** Closes the file; null when nothing was spooled (the output stayed small) or it failed. */
  finish(): StoredResult | null;
  /** The name the model reads the spooled output with, once writing has begun. */
  name(): string | null;
}

/** Where a session's oversized results are kept, so that nothing a tool returned is lost. */
export interface ResultStore {
  save(content: string, label: string): StoredResult;
  /** A spool that starts writing once `threshold` bytes have been seen. */
  spool(label: string, threshold: number): Spool;
  /** The file behind `@results/<name>`; null when `input` is not such a name; throws when it is gone. */
  locate(input: string): string | null;
}

// A secret (in any of its printed forms) is shorter than this, so one that ends in a new chunk of
// output always starts inside the text still held back.
const REDACT_CARRY = 4096;

/**
 * The store of one session in `dir` (created on first use, 0700, files 0600). `redact` removes nex's
 * own secrets before anything reaches the disk, also from output that arrives in pieces.
 */
export function createResultStore(dir: string, redact?: (text: string) => string): ResultStore {
  let count = 0;
  const nextName = (label: string): { name: string; path: string } => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    count += 1;
    const file = `${Date.now().toString(36)}-${count}-${label.replace(/[^\w.-]/g, "_").slice(0, 40)}.txt`;
    return { name: `${STORED_PREFIX}${file}`, path: join(dir, file) };
  };
  return {
    save(content, label) {
      const { name, path } = nextName(label);
      const bytes = Buffer.from(redact ? redact(content) : content, "utf8");
      const kept = bytes.length > MAX_STORED_BYTES ? bytes.subarray(0, MAX_STORED_BYTES) : bytes;
      writeFileSync(path, kept, { mode: 0o600 });
      return { name, path, bytes: bytes.length, complete: kept.length === bytes.length };
    },
    spool(label, threshold) {
      let pending: Buffer[] = [];
      let seen = 0;
      let fd: number | null = null;
      let file: { name: string; path: string } | null = null;
      let written = 0;
      let truncated = false;
      let failed = false;
      let newlines = 0;
      let last = 0x0a;
      const decoder = new StringDecoder("utf8");
      let held = "";
      // With a redactor, text is scrubbed with what came before it and the last REDACT_CARRY characters
      // are held back until more arrives (or the end), so a secret split between chunks is caught.
      const put = (chunk: Buffer, final = false): void => {
        if (!redact) {
          write(chunk);
          return;
        }
        const text = held + decoder.write(chunk) + (final ? decoder.end() : "");
        const clean = redact(text);
        const cut = final ? clean.length : Math.max(0, clean.length - REDACT_CARRY);
        held = clean.slice(cut);
        if (cut > 0) write(Buffer.from(clean.slice(0, cut), "utf8"));
      };
      const write = (chunk: Buffer): void => {
        if (fd === null || failed) return;
        const room = MAX_STORED_BYTES - written;
        if (chunk.length > room) truncated = true;
        if (room <= 0) return;
        const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
        try {
          writeSync(fd, part);
          written += part.length;
        } catch {
          failed = true;
        }
      };
      return {
        write(chunk) {
          seen += chunk.length;
          for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) newlines += 1;
          if (chunk.length > 0) last = chunk[chunk.length - 1] ?? last;
          if (fd === null && !failed) {
            pending.push(chunk);
            if (seen <= threshold) return;
            try {
              file = nextName(label);
              fd = openSync(file.path, "w", 0o600);
            } catch {
              failed = true;
              pending = [];
              return;
            }
            const all = pending;
            pending = [];
            for (const piece of all) put(piece);
            return;
          }
          put(chunk);
        },
        name: () => (file && !failed ? file.name : null),
        finish() {
          pending = [];
          if (fd !== null && redact) put(Buffer.alloc(0), true);
          if (fd !== null) closeSync(fd);
          if (!file || failed) return null;
          const lines = last === 0x0a ? newlines : newlines + 1;
          return { ...file, bytes: seen, complete: !truncated, lines };
        },
      };
    },
    locate(input) {
      const match = STORED_NAME.exec(input);
      if (!match?.[1]) return null;
      const path = join(dir, match[1]);
      if (!existsSync(path)) {
        throw new StoredResultMissing(
          `${input} is not stored any more (it was deleted, or belongs to another session). Run the call that produced it again.`,
        );
      }
      return path;
    },
  };
}

/** A stored result that was named but is gone. */
export class StoredResultMissing extends Error {
  override readonly name = "StoredResultMissing";
}

/** The line that tells the model where the whole result is and how to reach any part of it. */
export function storedNote(stored: StoredResult, lines: number | null): string {
  const size = `${formatBytes(stored.bytes)}${lines !== null ? `, ${formatCount(lines)} lines` : ""}`;
  const kept = stored.complete
    ? "stored whole"
    : `too large to keep whole: its first ${formatBytes(MAX_STORED_BYTES)} are stored`;
  return (
    `[The full result (${size}) is more than fits the context; ${kept} as "${stored.name}". ` +
    `Read any part with read_file (path "${stored.name}", offset, limit) or search it with grep (path "${stored.name}"). Its beginning and end:]`
  );
}
