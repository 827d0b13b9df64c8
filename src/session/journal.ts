import { closeSync, fsyncSync, mkdirSync, openSync, writeSync } from "node:fs";
import { open, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import type { AgentEvent, Message, ReadRecord } from "../protocol/index.ts";
import { readFirstLine, readLinesBackward } from "./line-reader.ts";
import { mapStrings } from "./map-strings.ts";
import {
  type CompactionInfo,
  type JournalRecord,
  type MessageRecord,
  parseRecord,
  type SessionMeta,
  sniffType,
  type UsageInfo,
} from "./records.ts";
import { hostOnly, type KnownSecrets, scrubberOf, scrubText, scrubValue } from "./scrub.ts";
import { newSessionId } from "./session-id.ts";
import { acquireSessionLock, type SessionLock } from "./session-lock.ts";
import { textMemo } from "./text-memo.ts";
import { cheapTokens } from "./tokens.ts";

/** When appends reach the disk: fsync at `syncTurn` (default), after every record, or never (tests). */
export type SyncMode = "turn" | "always" | "never";

/** Options of a journal writer. */
export interface JournalOptions {
  sync?: SyncMode;
  now?: () => Date;
  /** Secrets the caller holds (the API key): redacted wherever they appear in a record. */
  secrets?: KnownSecrets;
  /**
   * The redaction every other output of the session gets (keys in URLs too), applied to every
   * string of a record before the journal's own scrub: a journal shows no more than `--json` does.
   */
  redact?: (text: string) => string;
  /** The session's lock when the caller took it first (resume reads the journal under it); else taken here. */
  lock?: SessionLock;
}

/** What the runtime knows when a session starts; `baseUrl` is reduced to its host before it is written. */
export interface NewSession {
  workspace: string;
  provider: string;
  model: string;
  baseUrl: string;
  id?: string;
  /** `--role NAME` the session was started with. */
  role?: string;
}

/**
 * An append-only session journal. Each append is one `write` of one line on an fd opened for append, so
 * a 200-turn session costs a few milliseconds of journal work: nothing is re-read or rewritten. Appends
 * throw only on I/O errors (disk full): the runtime decides what to tell the user.
 */
export interface Journal {
  readonly path: string;
  readonly meta: SessionMeta;
  /** `seq` of the last message appended: the session's message count. */
  readonly seq: number;
  /** The cheap cumulative token estimate (`tok`) of the last message appended. */
  readonly tokens: number;
  /** How many secret-looking strings the scrub has redacted. */
  readonly redactions: number;
  /** Problems met while opening an existing journal (torn or corrupt lines); empty for a new one. */
  readonly warnings: readonly string[];
  appendMessage(message: Message): MessageRecord;
  appendLedger(record: ReadRecord): void;
  /** Writes the whole current ledger; done automatically on open, after a compaction and every ~128 KB appended. */
  appendLedgerSnapshot(): void;
  appendEvent(event: AgentEvent): void;
  appendCheckpoint(turn: number, description: string): void;
  /** Writes the compaction record, then a ledger snapshot. */
  appendCompaction(info: CompactionInfo): void;
  /** Marks a fresh start (`/clear`): earlier messages leave the conversation, and the ledger empties. */
  appendClear(): void;
  /** Marks a rewind (`/rewind`): the newest `drop` messages leave the conversation, and the ledger empties. */
  appendRewind(drop: number): void;
  /** Records usage with the current message count. */
  appendUsage(usage: UsageInfo): void;
  /** The read ledger: newest record per path. */
  ledger(): ReadRecord[];
  /** Call at each turn boundary: fsyncs (mode `turn`/`always`), so a finished turn survives a power loss. */
  syncTurn(): void;
  close(): void;
}

/** Where a session's journal lives under the runtime's data directory. */
export function journalPath(dataDir: string, sessionId: string): string {
  return join(dataDir, "sessions", `${sessionId}.jsonl`);
}

const SNAPSHOT_MIN_BYTES = 128 * 1024;

class FileJournal implements Journal {
  readonly path: string;
  readonly meta: SessionMeta;
  readonly warnings: readonly string[];
  #fd: number | null;
  #sync: SyncMode;
  #now: () => Date;
  /** One string as the journal writes it: the session's redaction, then the journal's own scrub. */
  #scrub: (text: string) => { text: string; redactions: number };
  /** A write failed part-way, so the file may end inside a line. */
  #torn = false;
  #seq: number;
  #tok: number;
  #ledger: Map<string, ReadRecord>;
  #lock: SessionLock;
  #redactions = 0;
  #bytesSinceSnapshot = 0;
  #lastSnapshotBytes = 0;

  constructor(init: {
    path: string;
    meta: SessionMeta;
    fd: number;
    lock: SessionLock;
    options: JournalOptions;
    seq: number;
    tok: number;
    ledger: Map<string, ReadRecord>;
    warnings: string[];
  }) {
    this.path = init.path;
    this.meta = init.meta;
    this.#fd = init.fd;
    this.#lock = init.lock;
    this.#sync = init.options.sync ?? "turn";
    this.#now = init.options.now ?? (() => new Date());
    const scrubber = scrubberOf(init.options.secrets ?? []);
    const redact = init.options.redact;
    // Records repeat their strings (a message, then the events that carry it): each distinct
    // string is scanned once, both ways, and what that gave is remembered.
    this.#scrub = textMemo((text) => scrubText(redact ? redact(text) : text, scrubber));
    this.#seq = init.seq;
    this.#tok = init.tok;
    this.#ledger = init.ledger;
    this.warnings = init.warnings;
  }

  get seq(): number {
    return this.#seq;
  }
  get tokens(): number {
    return this.#tok;
  }
  get redactions(): number {
    return this.#redactions;
  }

  #write(fields: Record<string, unknown> & { type: JournalRecord["type"] }): void {
    if (this.#fd === null)
      throw new Error(`The journal ${this.path} is closed; nothing was written.`);
    // `v` then `type` lead every line: `sniffType` reads a record's type from its first bytes.
    const { type, ...rest } = fields;
    const record = { v: 1, type, ts: this.#now().toISOString(), ...rest };
    let redactions = 0;
    const value = mapStrings(record, (text) => {
      const scrubbed = this.#scrub(text);
      redactions += scrubbed.redactions;
      return scrubbed.text;
    });
    this.#redactions += redactions;
    // After a failed write a fragment may end the file: start on a fresh line so this record survives.
    const bytes = Buffer.from(`${this.#torn ? "\n" : ""}${JSON.stringify(value)}\n`, "utf8");
    let written = 0;
    try {
      while (written < bytes.length) {
        written += writeSync(this.#fd, bytes, written, bytes.length - written);
      }
    } catch (error) {
      this.#torn = written > 0 || this.#torn;
      throw error;
    }
    this.#torn = false;
    this.#bytesSinceSnapshot += bytes.length;
    if (this.#sync === "always") fsyncSync(this.#fd);
    // Snapshots bound how far back a resume must read to rebuild the ledger: at most ~128 KB, or four
    // times the snapshot's own size when the ledger is large, so snapshots stay under 25% of the journal.
    if (
      type !== "ledger_snapshot" &&
      this.#bytesSinceSnapshot >= Math.max(SNAPSHOT_MIN_BYTES, 4 * this.#lastSnapshotBytes)
    ) {
      this.appendLedgerSnapshot();
    }
  }

  appendMessage(message: Message): MessageRecord {
    // The totals move only once the record is written, so a failed write leaves them true.
    const seq = this.#seq + 1;
    const tok = this.#tok + cheapTokens(message);
    const record: MessageRecord = {
      v: 1,
      type: "message",
      ts: this.#now().toISOString(),
      seq,
      tok,
      message,
    };
    this.#write({ type: "message", seq, tok, message });
    this.#seq = seq;
    this.#tok = tok;
    return record;
  }

  appendLedger(record: ReadRecord): void {
    this.#ledger.set(record.path, record);
    this.#write({ type: "ledger", record });
  }

  appendLedgerSnapshot(): void {
    const before = this.#bytesSinceSnapshot;
    this.#write({ type: "ledger_snapshot", records: this.ledger() });
    this.#lastSnapshotBytes = this.#bytesSinceSnapshot - before;
    this.#bytesSinceSnapshot = 0;
  }

  appendEvent(event: AgentEvent): void {
    this.#write({ type: "event", event });
  }

  appendCheckpoint(turn: number, description: string): void {
    this.#write({ type: "checkpoint", turn, description });
  }

  appendCompaction(info: CompactionInfo): void {
    this.#write({
      type: "compaction",
      summary: info.summary,
      replacedMessages: info.replacedMessages,
      firstKeptSeq: info.firstKeptSeq,
      tokensBefore: info.tokensBefore,
      tokensAfter: info.tokensAfter,
    });
    this.appendLedgerSnapshot();
  }

  appendClear(): void {
    this.#write({ type: "clear", lastSeq: this.#seq });
    this.#ledger.clear();
    this.appendLedgerSnapshot();
  }

  appendRewind(drop: number): void {
    this.#write({ type: "rewind", drop });
    this.#ledger.clear();
    this.appendLedgerSnapshot();
  }

  appendUsage(usage: UsageInfo): void {
    this.#write({
      type: "usage",
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      messages: this.#seq,
      estimatedTokens: usage.estimatedTokens ?? null,
    });
  }

  ledger(): ReadRecord[] {
    return [...this.#ledger.values()];
  }

  syncTurn(): void {
    if (this.#fd === null) return;
    if (this.#sync !== "never") fsyncSync(this.#fd);
  }

  close(): void {
    if (this.#fd === null) return;
    try {
      if (this.#sync !== "never") fsyncSync(this.#fd);
      closeSync(this.#fd);
    } finally {
      this.#fd = null;
      this.#lock.release();
    }
  }
}

/** Starts a new journal at `<dataDir>/sessions/<id>.jsonl` (directory 0700, file 0600) and writes its header. */
export async function createJournal(
  dataDir: string,
  session: NewSession,
  options: JournalOptions = {},
): Promise<Journal> {
  const dir = join(dataDir, "sessions");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const now = options.now ?? (() => new Date());
  for (let attempt = 0; ; attempt++) {
    const id = session.id ?? newSessionId(now());
    const path = journalPath(dataDir, id);
    // Locked before the file exists, so no other nex can open the new session before this one holds it.
    const lock = options.lock ?? acquireSessionLock(path, id);
    let fd: number;
    try {
      fd = openSync(path, "ax", 0o600);
    } catch (error) {
      // A lock the caller took is the caller's to release.
      if (!options.lock) lock.release();
      const exists = (error as NodeJS.ErrnoException).code === "EEXIST";
      if (exists && session.id === undefined && attempt < 5) continue;
      throw error;
    }
    const createdAt = now().toISOString();
    const meta: SessionMeta = {
      id,
      workspace: session.workspace,
      provider: session.provider,
      model: session.model,
      host: hostOnly(session.baseUrl),
      createdAt,
      ...(session.role ? { role: session.role } : {}),
    };
    const header = scrubValue({ v: 1, type: "session", ts: createdAt, ...meta }).value;
    try {
      writeSync(fd, `${JSON.stringify(header)}\n`);
      if (options.sync !== "never") fsyncSync(fd);
    } catch (error) {
      closeSync(fd);
      if (!options.lock) lock.release();
      throw error;
    }
    return new FileJournal({
      path,
      meta,
      fd,
      lock,
      options,
      seq: 0,
      tok: 0,
      ledger: new Map(),
      warnings: [],
    });
  }
}

/** Reads and checks a journal's header line. */
export function parseHeader(bytes: Buffer, path: string): SessionMeta {
  const parsed = parseRecord(bytes.toString("utf8"));
  if (!parsed.ok || parsed.record.type !== "session") {
    throw new Error(
      `${path} is not a nex session journal (its first line is not a session record); ` +
        "pick another session with `nex sessions`.",
    );
  }
  const { id, workspace, provider, model, host, createdAt, role } = parsed.record;
  return { id, workspace, provider, model, host, createdAt, ...(role ? { role } : {}) };
}

/**
 * Reopens an existing journal for appending, continuing its running totals. It reads only the tail: the
 * last message record and the ledger back to the newest snapshot (unless `ledger` is passed, e.g. from
 * `loadForResume`). A torn last line is closed with a newline so that new records start on a line of their
 * own (the fragment stays, skipped with a warning on load). A ledger snapshot marks the resume point.
 */
export async function openJournal(
  path: string,
  options: JournalOptions & {
    ledger?: readonly ReadRecord[];
    /** The last message's totals when the caller already read them (resume): no second scan. */
    tail?: { seq: number; tok: number } | null;
  } = {},
): Promise<Journal> {
  const warnings: string[] = [];
  const lock = options.lock ?? acquireSessionLock(path, basename(path, ".jsonl"));
  if (lock.notice && !options.lock) warnings.push(lock.notice);
  try {
    return await reopen(path, options, lock, warnings);
  } catch (error) {
    if (!options.lock) lock.release();
    throw error;
  }
}

async function reopen(
  path: string,
  options: JournalOptions & {
    ledger?: readonly ReadRecord[];
    tail?: { seq: number; tok: number } | null;
  },
  lock: SessionLock,
  warnings: string[],
): Promise<Journal> {
  const handle = await open(path, "r");
  let seq = options.tail?.seq ?? 0;
  let tok = options.tail?.tok ?? 0;
  let meta: SessionMeta;
  let torn = false;
  const ledger = new Map<string, ReadRecord>((options.ledger ?? []).map((r) => [r.path, r]));
  try {
    const { size } = await handle.stat();
    const header = await readFirstLine(handle, { size });
    meta = parseHeader(header.bytes, path);
    let seqFound = Boolean(options.tail);
    let ledgerDone = options.ledger !== undefined;
    const lines =
      seqFound && ledgerDone ? [] : readLinesBackward(handle, { size, stopAt: header.end });
    for await (const line of lines) {
      if (!line.terminated) torn = true;
      const type = sniffType(line.bytes);
      const wanted =
        (!seqFound && (type === "message" || type === null)) ||
        (!ledgerDone && (type === "ledger" || type === "ledger_snapshot" || type === null));
      if (!wanted) continue;
      const parsed = parseRecord(line.bytes.toString("utf8"));
      if (!parsed.ok) {
        warnings.push(describeBadLine(line.fromEnd, line.terminated, parsed.reason));
        continue;
      }
      const r = parsed.record;
      if (r.type === "message" && !seqFound) {
        seq = r.seq;
        tok = r.tok;
        seqFound = true;
      } else if (r.type === "ledger" && !ledgerDone && !ledger.has(r.record.path)) {
        ledger.set(r.record.path, r.record);
      } else if (r.type === "ledger_snapshot" && !ledgerDone) {
        for (const rec of r.records) if (!ledger.has(rec.path)) ledger.set(rec.path, rec);
        ledgerDone = true;
      }
      if (seqFound && ledgerDone) break;
    }
    if (!torn && size > header.end) torn = !(await endsWithNewline(handle, size));
  } finally {
    await handle.close();
  }
  const fd = openSync(path, "a");
  if (torn) writeSync(fd, "\n");
  const journal = new FileJournal({ path, meta, fd, lock, options, seq, tok, ledger, warnings });
  journal.appendLedgerSnapshot();
  return journal;
}

async function endsWithNewline(
  handle: Awaited<ReturnType<typeof open>>,
  size: number,
): Promise<boolean> {
  const byte = Buffer.alloc(1);
  await handle.read(byte, 0, 1, size - 1);
  return byte[0] === 0x0a;
}

/** The warning for a line that could not be used, counted from the end (a backward read has no line numbers). */
export function describeBadLine(fromEnd: number, terminated: boolean, reason: string): string {
  if (!terminated) {
    return "The journal's last line is incomplete (nex stopped while writing it) and was skipped; everything before it loaded.";
  }
  const where = fromEnd === 1 ? "The last journal line" : `Journal line ${fromEnd} from the end`;
  return `${where} is corrupt (${reason}) and was skipped; the rest loaded.`;
}

/** A journal read whole, for inspection and tests; resume uses `loadForResume`, which reads only the tail. */
export interface LoadedJournal {
  meta: SessionMeta;
  records: JournalRecord[];
  warnings: string[];
}

/** Reads every record of a journal; unusable lines are skipped with a warning naming their line number. */
export async function readJournal(path: string): Promise<LoadedJournal> {
  const text = await readFile(path, "utf8");
  const lines = text.split("\n");
  const meta = parseHeader(Buffer.from(lines[0] ?? ""), path);
  const records: JournalRecord[] = [];
  const warnings: string[] = [];
  const lastIndex = lines.length - 1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.length === 0) continue;
    const parsed = parseRecord(line);
    if (parsed.ok) {
      records.push(parsed.record);
      continue;
    }
    warnings.push(
      i === lastIndex
        ? `Journal line ${i + 1}, the last, is incomplete (nex stopped while writing it) and was skipped; everything before it loaded.`
        : `Journal line ${i + 1} is corrupt (${parsed.reason}) and was skipped; the rest loaded.`,
    );
  }
  return { meta, records, warnings };
}
