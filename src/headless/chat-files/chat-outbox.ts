// What the handler writes: `outbox.jsonl` (one reply a line, with the `request_id` it answers),
// `.streaming` (the reply so far, replaced whole), and `.coordinator-cursor` (the highest inbox id
// below which every message has its reply). The outbox is the record of what was answered: a reply is
// appended and synced before the cursor moves, and on start the outbox's request ids say which
// messages past the cursor were answered already, so a crash between the two never answers twice.
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { LineSplitter } from "../../runtime/session/index.ts";
import { lockOutbox, OUTBOX_LOCK } from "./outbox-lock.ts";

export const OUTBOX = "outbox.jsonl";
/** "a+", but never through a link: a reply goes only into the chat folder's own outbox. */
const APPEND_NO_LINK =
  constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;
export const STREAMING = ".streaming";
export const CURSOR = ".coordinator-cursor";

/**
 * One outbox line. `role` is "coordinator" for an answer, "system-error" when the turn gave none;
 * "approval-request" asks the user (it answers nothing), "approval-answered" acknowledges an answer.
 */
export interface OutboxReply {
  role: "coordinator" | "system-error" | "approval-request" | "approval-answered";
  content: string;
  requestId: string;
  inboxId: number;
  /** The reply with its steps (each tool call as a box), when it had any: workgraph's `full_response`. */
  fullResponse?: string;
  /** More fields of the line (an approval request's). */
  extra?: Record<string, unknown>;
}

/** The chat's outbox: appends replies and knows which requests have one. */
export class Outbox {
  private readonly path: string;
  private readonly lockPath: string;
  private readonly err: (text: string) => void;
  private lastId = 0;
  private readonly answered = new Set<string>();
  /** How far the file has been read (same inode): another writer's lines are read from there. */
  private scanned = { inode: -1, offset: 0 };

  constructor(dir: string, err: (text: string) => void = () => {}) {
    this.path = join(dir, OUTBOX);
    this.lockPath = join(dir, OUTBOX_LOCK);
    this.err = err;
    this.catchUp();
  }

  has(requestId: string): boolean {
    return this.answered.has(requestId);
  }

  /**
   * Appends one line under workgraph's lock, its id one more than the largest in the file now (another
   * writer may have appended since), and syncs it: once this returns, the line survives a crash.
   */
  append(reply: OutboxReply): Promise<number> {
    return this.appendWith(() => reply);
  }

  /** As `append`, for a line that names its own id (an approval's number). */
  async appendWith(make: (id: number) => OutboxReply): Promise<number> {
    const lock = await lockOutbox(this.lockPath);
    try {
      this.catchUp();
      const id = this.lastId + 1;
      const reply = make(id);
      if (lock.unlocked)
        this.err(
          `nex: ${lock.unlocked}; the line for request ${reply.requestId} is appended without it, and its id could repeat one another writer appends at the same moment.\n`,
        );
      const line = JSON.stringify({
        id,
        timestamp: new Date().toISOString(),
        role: reply.role,
        content: reply.content,
        request_id: reply.requestId,
        in_reply_to: reply.inboxId,
        ...(reply.fullResponse === undefined ? {} : { full_response: reply.fullResponse }),
        ...reply.extra,
      });
      const fd = openSync(this.path, APPEND_NO_LINK, 0o600);
      try {
        // A line torn by a crash of another writer must not swallow this one.
        const size = fstatSync(fd).size;
        const torn = size > 0 && !endsWithNewline(fd, size);
        // One write: a reader (or a writer that ignores the lock) never sees half a line.
        writeSync(fd, `${torn ? "\n" : ""}${line}\n`);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      this.lastId = id;
      if (reply.role !== "approval-request") this.answered.add(reply.requestId);
      return id;
    } finally {
      lock.release();
    }
  }

  /** Reads the ids and request ids of the lines written since the last look, with bounded memory. */
  private catchUp(): void {
    let fd: number;
    try {
      fd = openSync(this.path, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch {
      return;
    }
    try {
      const { ino, size } = fstatSync(fd);
      // Rewritten (workgraph's rotation keeps the newest lines, ids included): read it again whole.
      if (ino !== this.scanned.inode || size < this.scanned.offset)
        this.scanned = { inode: ino, offset: 0 };
      const lines = new LineSplitter(() => {});
      const take = (text: string) => {
        try {
          const value = JSON.parse(text) as { id?: unknown; request_id?: unknown; role?: unknown };
          if (typeof value.id === "number" && value.id > this.lastId) this.lastId = value.id;
          // A question asked while answering is not the answer.
          if (typeof value.request_id === "string" && value.role !== "approval-request")
            this.answered.add(value.request_id);
        } catch {
          // A torn line: no reply was written whole there.
        }
      };
      const buffer = Buffer.alloc(1024 * 1024);
      let at = this.scanned.offset;
      let whole = at;
      for (;;) {
        const read = readSync(fd, buffer, 0, buffer.length, at);
        if (read === 0) break;
        for (const line of lines.push(buffer.subarray(0, read))) take(line.text);
        at += read;
        // Resume after the last newline next time: a line being written is read once it is whole.
        const newline = buffer.lastIndexOf(10, read - 1);
        if (newline !== -1) whole = at - read + newline + 1;
      }
      this.scanned.offset = whole;
    } finally {
      closeSync(fd);
    }
  }
}

function endsWithNewline(fd: number, size: number): boolean {
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] === 10;
}

/** The cursor as workgraph writes it: the number alone, replaced whole. */
export function readCursor(dir: string): number {
  try {
    const value = Number(readFileSync(join(dir, CURSOR), "utf8").trim());
    return Number.isSafeInteger(value) && value >= 0 ? value : 0;
  } catch {
    return 0;
  }
}

export function writeCursor(dir: string, value: number): void {
  replaceFile(join(dir, CURSOR), `${value}\n`);
}

/** The reply so far, replaced whole so a reader never sees half a write. */
export function writeStreaming(dir: string, text: string): void {
  replaceFile(join(dir, STREAMING), text);
}

export function clearStreaming(dir: string): void {
  rmSync(join(dir, STREAMING), { force: true });
}

function replaceFile(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  renameSync(temporary, path);
}
