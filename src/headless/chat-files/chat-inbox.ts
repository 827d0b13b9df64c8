// `inbox.jsonl`, read as workgraph writes it: one JSON object a line, each with a numeric `id` that
// grows, the text in `content` and the `request_id` the answer carries back. Read from a byte offset
// as lines are appended, and from the start again when the file is replaced or cut (workgraph's
// rotation rewrites it), with bounded memory: a line over the cap is dropped as it is read.
import { closeSync, constants, lstatSync, openSync, readSync } from "node:fs";
import type { AttachmentRef } from "../../runtime/extensions/index.ts";
import { inputLineCap, LineSplitter } from "../../runtime/session/index.ts";

/** One user turn of the inbox. */
export interface InboxMessage {
  id: number;
  content: string;
  requestId: string;
  /** `"urgent": true` or `"priority": "urgent"`: the running turn is cancelled for it. */
  urgent: boolean;
  /** Workgraph's `attachments`: files the message carries (read when it is answered). */
  attachments: AttachmentRef[];
  /** `approval_id` and `answer`: the message answers nex's question (chat-approvals.ts). */
  approval?: { approvalId: number; answer: "approve" | "always" | "deny" };
}

const READ_CHUNK = 1024 * 1024;

/** Reads the lines added to an inbox since the last call. */
export class InboxReader {
  private offset = 0;
  private inode = -1;
  private readonly lines: LineSplitter;
  private readonly path: string;
  private readonly err: (text: string) => void;

  constructor(path: string, err: (text: string) => void) {
    this.path = path;
    this.err = err;
    this.lines = new LineSplitter((number, bytes) =>
      err(
        `nex: inbox.jsonl line ${number} is longer than ${inputLineCap()} (${bytes} bytes) and was skipped; write one message per line, each under ${inputLineCap()}.\n`,
      ),
    );
  }

  /** The messages of the complete lines added since the last call (all of them, the first time). */
  read(): InboxMessage[] {
    let size: number;
    let inode: number;
    try {
      // Never through a link: nex checked at start that the inbox is a plain file of the folder's own.
      const stat = lstatSync(this.path);
      if (!stat.isFile()) return [];
      size = stat.size;
      inode = stat.ino;
    } catch {
      return [];
    }
    if (inode !== this.inode || size < this.offset) {
      // A new file (replaced, rotated or cut): read from its start; ids already seen are skipped by the caller.
      this.inode = inode;
      this.offset = 0;
      this.lines.reset();
      this.lines.skipTo(0);
    }
    if (size === this.offset) return [];
    const out: InboxMessage[] = [];
    const fd = openSync(this.path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const buffer = Buffer.alloc(Math.min(size - this.offset, READ_CHUNK));
      while (this.offset < size) {
        const read = readSync(
          fd,
          buffer,
          0,
          Math.min(buffer.length, size - this.offset),
          this.offset,
        );
        if (read === 0) break;
        this.offset += read;
        for (const line of this.lines.push(buffer.subarray(0, read))) {
          if (line.text.trim() === "") continue;
          const message = inboxMessage(line.text);
          if (typeof message === "string")
            this.err(`nex: inbox.jsonl line ${line.number} ${message}; skipped.\n`);
          else if (message) out.push(message);
        }
      }
    } finally {
      closeSync(fd);
    }
    return out;
  }
}

/** A line as a message; a string says why it is not one; null: a line that is not a user's turn. */
export function inboxMessage(line: string): InboxMessage | string | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'is not JSON; write one object a line such as {"id":1,"role":"user","content":"...","request_id":"r1"}';
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return "is not a JSON object";
  const record = value as Record<string, unknown>;
  if (record.role !== undefined && record.role !== "user") return null;
  const id = record.id;
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 1)
    return 'has no "id" (a whole number of 1 or more, growing line by line)';
  const attachments = attachmentsOf(record.attachments);
  if (typeof attachments === "string") return `(id ${id}) ${attachments}`;
  const approval = approvalOf(record);
  if (typeof approval === "string") return `(id ${id}) ${approval}`;
  const content = record.content ?? record.message ?? record.text ?? "";
  if (
    typeof content !== "string" ||
    (content.trim() === "" && attachments.length === 0 && !approval)
  )
    return `(id ${id}) has no text in "content" and no attachments`;
  const requestId = typeof record.request_id === "string" ? record.request_id : String(id);
  const urgent = record.urgent === true || record.priority === "urgent";
  return { id, content, requestId, urgent, attachments, ...(approval ? { approval } : {}) };
}

/** `"approval_id": 42, "answer": "approve"|"always"|"deny"`, or why the pair is not that. */
function approvalOf(record: Record<string, unknown>): InboxMessage["approval"] | string | null {
  if (record.approval_id === undefined && record.answer === undefined) return null;
  const approvalId = Number(record.approval_id);
  const answer = record.answer;
  if (!Number.isSafeInteger(approvalId) || approvalId < 1)
    return 'has "answer" without the "approval_id" (the approval-request line\'s id) it answers';
  if (answer !== "approve" && answer !== "always" && answer !== "deny")
    return `answers approval ${approvalId} with neither "approve", "always" nor "deny"; nothing was approved`;
  return { approvalId, answer };
}

/** `[{ "path": …, "mime_type": …, "size_bytes": … }]`, or why the field is not that. */
function attachmentsOf(value: unknown): AttachmentRef[] | string {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value))
    return 'has "attachments" that is not a list of {"path","mime_type","size_bytes"}';
  const refs: AttachmentRef[] = [];
  for (const item of value) {
    const entry = (item ?? {}) as Record<string, unknown>;
    if (typeof entry.path !== "string")
      return 'has an attachment with no "path" (a file\'s path relative to the project root)';
    refs.push({
      path: entry.path,
      ...(typeof entry.mime_type === "string" ? { mimeType: entry.mime_type } : {}),
      ...(typeof entry.size_bytes === "number" ? { sizeBytes: entry.size_bytes } : {}),
    });
  }
  return refs;
}
