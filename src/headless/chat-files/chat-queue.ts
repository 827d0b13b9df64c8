// The inbox messages waiting for their turn, in the order they are answered, and the cursor that
// follows them: ordinary messages in id order, urgent ones ahead of them; the cursor moves past an
// id only once every message up to it has its outbox line.
import type { InboxMessage } from "./chat-inbox.ts";
import { readCursor, writeCursor } from "./chat-outbox.ts";

export class ChatQueue {
  private readonly dir: string;
  private cursor: number;
  /** The highest id read: a line with an id not above it is not read again. */
  private highest: number;
  private readonly pending: InboxMessage[] = [];
  /** Ids read and not answered yet: the cursor stops below the lowest. */
  private readonly open = new Set<number>();

  constructor(dir: string) {
    this.dir = dir;
    this.cursor = readCursor(dir);
    this.highest = this.cursor;
  }

  /** False for a line already read (an id not above the highest read). */
  isNew(message: InboxMessage): boolean {
    if (message.id <= this.highest) return false;
    this.highest = message.id;
    return true;
  }

  /** A message that needs its outbox line (answered now or queued): the cursor waits for it. */
  hold(id: number): void {
    this.open.add(id);
  }

  /** Queues a held message: an urgent one ahead of the ordinary ones, after earlier urgent ones. */
  queue(message: InboxMessage): void {
    this.hold(message.id);
    if (!message.urgent) {
      this.pending.push(message);
      return;
    }
    const at = this.pending.findIndex((m) => !m.urgent);
    this.pending.splice(at === -1 ? this.pending.length : at, 0, message);
  }

  next(): InboxMessage | undefined {
    return this.pending.shift();
  }

  /** The message has its outbox line. */
  done(id: number): void {
    this.open.delete(id);
    this.moveCursor();
  }

  moveCursor(): void {
    const lowestOpen = this.open.size === 0 ? this.highest + 1 : Math.min(...this.open);
    const next = lowestOpen - 1;
    if (next > this.cursor) {
      this.cursor = next;
      writeCursor(this.dir, this.cursor);
    }
  }
}
