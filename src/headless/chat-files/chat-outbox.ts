// What the handler writes: `outbox.jsonl` (one reply a line, with the `request_id` it answers),
// `.streaming` (the reply so far, replaced whole), and `.coordinator-cursor` (the highest inbox id
// below which every message has its reply). The outbox is the record of what was answered: a reply is
// appended and synced before the cursor moves, and on start the outbox's request ids say which
// messages past the cursor were answered already, so a crash between the two never answers twice.
import {
  closeSync,
  fsyncSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { LineSplitter } from "../../runtime/session/index.ts";

export const OUTBOX = "outbox.jsonl";
export const STREAMING = ".streaming";
export const CURSOR = ".coordinator-cursor";

/** One reply line. `role` is "coordinator" for an answer, "system-error" when the turn gave none. */
export interface OutboxReply {
  role: "coordinator" | "system-error";
  content: string;
  requestId: string;
  inboxId: number;
  /** The reply with its steps (each tool call as a box), when it had any: workgraph's `full_response`. */
  fullResponse?: string;
}

/** The chat's outbox: appends replies and knows which requests have one. */
export class Outbox {
  private readonly path: string;
  private lastId = 0;
  private readonly answered = new Set<string>();

  constructor(dir: string) {
    this.path = join(dir, OUTBOX);
    this.scan();
  }

  has(requestId: string): boolean {
    return this.answered.has(requestId);
  }

  /** Appends one reply line and syncs it: once this returns, the reply survives a crash. */
  append(reply: OutboxReply): void {
    this.lastId += 1;
    const line = JSON.stringify({
      id: this.lastId,
      timestamp: new Date().toISOString(),
      role: reply.role,
      content: reply.content,
      request_id: reply.requestId,
      in_reply_to: reply.inboxId,
      ...(reply.fullResponse === undefined ? {} : { full_response: reply.fullResponse }),
    });
    const fd = openSync(this.path, "a+", 0o600);
    try {
      // A line torn by a crash of another writer must not swallow this one.
      const size = statSync(this.path).size;
      const torn = size > 0 && !endsWithNewline(fd, size);
      writeSync(fd, `${torn ? "\n" : ""}${line}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    this.answered.add(reply.requestId);
  }

  /** Reads the ids and request ids of the replies already written, with bounded memory. */
  private scan(): void {
    let fd: number;
    try {
      fd = openSync(this.path, "r");
    } catch {
      return;
    }
    const lines = new LineSplitter(() => {});
    const take = (text: string) => {
      try {
        const value = JSON.parse(text) as { id?: unknown; request_id?: unknown };
        if (typeof value.id === "number" && value.id > this.lastId) this.lastId = value.id;
        if (typeof value.request_id === "string") this.answered.add(value.request_id);
      } catch {
        // A torn last line: no reply was written whole there.
      }
    };
    try {
      const buffer = Buffer.alloc(1024 * 1024);
      for (let at = 0; ; ) {
        const read = readSync(fd, buffer, 0, buffer.length, at);
        if (read === 0) break;
        at += read;
        for (const line of lines.push(buffer.subarray(0, read))) take(line.text);
      }
      for (const line of lines.end()) take(line.text);
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
