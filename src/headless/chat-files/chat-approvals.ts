// Approvals asked through the chat files. When a step needs the user's yes, nex appends an
// `approval-request` line to the outbox (its `id` is the approval's number) and waits; the answer is an
// inbox line, the user's word like any other: `approve N` (this once), `always N` (for the rest of the
// session) or `deny N`, typed, or the fields `approval_id` and `answer` written by a program. An
// answer names its question, so one written for an earlier question (a handler ago, or one that
// timed out) never approves a later one. Nobody answering within the timeout denies the step, and
// the model, the turn's reply and stderr say so. Only the inbox answers: nothing nex runs can write it.
import type { AgentEvent, PermissionAnswer } from "../../protocol/index.ts";
import type { AgentSession } from "../../runtime/session/index.ts";
import type { InboxMessage } from "./chat-inbox.ts";
import type { Outbox, OutboxReply } from "./chat-outbox.ts";

/** How long a question waits for its answer, unless `--approval-timeout` says otherwise. */
export const DEFAULT_APPROVAL_TIMEOUT_S = 600;
/** The most of a file tool's diff shown with the question. */
const PREVIEW_CHARS = 8 * 1024;

const WORDS: Record<string, PermissionAnswer["type"]> = {
  approve: "allow_once",
  always: "allow_session",
  deny: "deny",
};
/** `approve 42`, `always #42`, `deny 42`: the whole message, any case. */
const TYPED = /^\s*(approve|always|deny)\s+#?(\d{1,15})\s*[.!]?\s*$/i;

interface Waiting {
  callId: string;
  what: string;
  timer: NodeJS.Timeout;
}

/** An answer to a question: its number and what it says. */
type Answer = { approvalId: number; answer: "approve" | "always" | "deny" };

/** The answer an inbox message gives, or null when it is an ordinary message. */
export function approvalAnswer(message: InboxMessage): Answer | null {
  if (message.approval) return message.approval;
  const typed = TYPED.exec(message.content);
  if (!typed) return null;
  return {
    approvalId: Number(typed[2]),
    answer: (typed[1] ?? "").toLowerCase() as "approve" | "always" | "deny",
  };
}

export class ChatApprovals {
  private readonly waiting = new Map<number, Waiting>();
  /** What the running turn's reply should say about its approvals (timeouts). */
  private notes: string[] = [];
  private readonly unsubscribe: () => void;
  private acks: Promise<unknown> = Promise.resolve();
  private readonly session: AgentSession;
  private readonly outbox: Outbox;
  /** The message being answered (the question goes out with its request id). */
  private readonly running: () => InboxMessage | null;
  private readonly timeoutMs: number;
  private readonly err: (text: string) => void;

  constructor(parts: {
    session: AgentSession;
    outbox: Outbox;
    running: () => InboxMessage | null;
    /** 0: no question is asked. */
    timeoutMs: number;
    err: (text: string) => void;
  }) {
    this.session = parts.session;
    this.outbox = parts.outbox;
    this.running = parts.running;
    this.timeoutMs = parts.timeoutMs;
    this.err = parts.err;
    // No timeout: nobody is asked (the session refuses on its own), and every answer finds nothing waiting.
    this.unsubscribe =
      parts.timeoutMs > 0
        ? parts.session.subscribe((event: AgentEvent) => {
            if (event.type === "permission_requested") void this.ask(event);
          })
        : () => {};
  }

  /**
   * Takes an answer at once (the turn is waiting for it): it counts only for a question waiting now,
   * never for one asked while earlier acknowledgements are still being written. Its acknowledgement
   * is appended after those before it, then `written` runs.
   */
  take(message: InboxMessage, given: Answer, written: () => void): void {
    const reply = this.answer(message, given);
    this.acks = this.acks
      .then(() => this.outbox.append(reply))
      .then(written, (error: Error) =>
        this.err(
          `nex: the answer in inbox id ${message.id} was taken, but its outbox line was not written (${error.message}).\n`,
        ),
      );
  }

  /** Once every acknowledgement taken so far is written. */
  async settled(): Promise<void> {
    await this.acks;
  }

  /** Answers a waiting question; the outbox line that acknowledges the inbox message. */
  answer(
    message: InboxMessage,
    given: NonNullable<ReturnType<typeof approvalAnswer>>,
  ): OutboxReply {
    const base = { requestId: message.requestId, inboxId: message.id };
    const waiting = this.waiting.get(given.approvalId);
    if (!waiting)
      return {
        ...base,
        role: "system-error",
        content: `No approval ${given.approvalId} is waiting (it was answered, timed out, or its turn ended); nothing was approved. Answer the question in the newest approval-request line, with its number.`,
      };
    this.settle(given.approvalId);
    const type = WORDS[given.answer] ?? "deny";
    this.session.answerPermission(
      waiting.callId,
      type === "deny" ? { type, reason: "the user denied it in the chat" } : { type },
    );
    const said =
      type === "allow_once"
        ? "Approved once"
        : type === "allow_session"
          ? "Approved for the rest of this session"
          : "Denied";
    return {
      ...base,
      role: "approval-answered",
      content: `${said}: ${waiting.what}`,
      extra: { approval_id: given.approvalId, answer: given.answer },
    };
  }

  /** The notes for the reply of the turn that just ended; its questions are over. */
  endTurn(): string[] {
    for (const id of [...this.waiting.keys()]) this.settle(id);
    const notes = this.notes;
    this.notes = [];
    return notes;
  }

  close(): void {
    this.endTurn();
    this.unsubscribe();
  }

  private async ask(event: Extract<AgentEvent, { type: "permission_requested" }>): Promise<void> {
    const message = this.running();
    const what = `${event.name}: ${event.summary}`;
    const minutes = formatWait(this.timeoutMs);
    const expires = new Date(Date.now() + this.timeoutMs).toISOString();
    const preview =
      event.preview && event.preview.length > PREVIEW_CHARS
        ? `${event.preview.slice(0, PREVIEW_CHARS)}\n[… ${event.preview.length - PREVIEW_CHARS} more characters]`
        : event.preview;
    let id: number;
    try {
      id = await this.outbox.appendWith((n) => ({
        requestId: message?.requestId ?? "",
        inboxId: message?.id ?? 0,
        role: "approval-request",
        content: `nex asks before it goes on: ${what}${event.scope ? `\n("always" approves ${event.scope} for this session.)` : ""}\n\nAnswer in the inbox within ${minutes}: \`approve ${n}\` (this once), \`always ${n}\` (for this session) or \`deny ${n}\`. No answer by ${expires} denies it.`,
        extra: {
          approval_id: n,
          tool: event.name,
          summary: event.summary,
          ...(preview ? { preview } : {}),
          ...(event.scope ? { scope: event.scope } : {}),
          expires_at: expires,
        },
      }));
    } catch (error) {
      this.session.answerPermission(event.callId, {
        type: "deny",
        reason: `nex could not ask the user in the chat (${(error as Error).message})`,
      });
      return;
    }
    const timer = setTimeout(() => {
      if (!this.waiting.has(id)) return;
      this.settle(id);
      const why = `nobody answered approval ${id} in the chat within ${minutes}`;
      this.session.answerPermission(event.callId, { type: "deny", reason: why });
      this.notes.push(`approval ${id} (${what}) was denied: ${why}.`);
      this.err(`nex: approval ${id} (${what}) was denied: ${why}.\n`);
    }, this.timeoutMs);
    this.waiting.set(id, { callId: event.callId, what, timer });
  }

  private settle(id: number): void {
    const waiting = this.waiting.get(id);
    if (!waiting) return;
    clearTimeout(waiting.timer);
    this.waiting.delete(id);
  }
}

function formatWait(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds % 60 === 0 && seconds >= 60) return `${seconds / 60} min`;
  return `${seconds} s`;
}
