import { closeSync, openSync, readSync, statSync, unwatchFile, watchFile } from "node:fs";
import { resolve } from "node:path";
import { inputLineCap, LineSplitter } from "../runtime/session/index.ts";

/** What a running `nex run` is told from outside: its time budget and its inbox. */
export interface RunLimits {
  /** Notes for the model at the next turn boundary (taken once each). */
  takeNotes(): string[];
  /** True once `--max-time` ran out. */
  timedOut(): boolean;
  /** Called when the time budget runs out (the session is interrupted), at once if it already has. */
  onTimeout(stop: () => void): void;
  /** Messages that arrived but no turn boundary came to deliver them. */
  undelivered(): string[];
  /** Called when an urgent inbox message arrives (the caller cancels the running turn). */
  onUrgent(handler: () => void): void;
  /** The urgent messages not run yet, as prompts, and none left. */
  takeUrgent(): string[];
  stop(): void;
}

const INBOX_POLL_MS = 300;
/** How much of the inbox one read takes: a huge append is read in pieces, never whole. */
const READ_CHUNK = 1024 * 1024;

/** Starts `--max-time`'s clock and `--inbox`'s watch; `err` gets what the user should know. */
export function startRunLimits(
  options: { maxTimeMs?: number; label?: string; inbox?: string },
  err: (text: string) => void,
): RunLimits {
  const notes: string[] = [];
  const timers: NodeJS.Timeout[] = [];
  let out = false;
  let stopRun: (() => void) | null = null;
  const { maxTimeMs, inbox } = options;
  if (maxTimeMs !== undefined) {
    const budget = describe(maxTimeMs);
    timers.push(
      setTimeout(() => {
        notes.push(
          `80% of this run's time budget (${budget}) is spent. Finish the step you are on, leave the work consistent, and give your final answer now; the run is stopped when the budget is spent.`,
        );
      }, maxTimeMs * 0.8),
      setTimeout(() => {
        out = true;
        err(
          `nex: the time budget of ${budget} (${options.label ?? "--max-time"}) is spent; stopping the run.\n`,
        );
        stopRun?.();
      }, maxTimeMs),
    );
    for (const timer of timers) timer.unref();
  }
  // Each note says where it came from (the inbox's path and line), so a message never passes for the user's.
  const inboxTexts = new Map<string, string>();
  const urgent: { note: string; text: string }[] = [];
  // Only `nex run`'s text and JSON runs cancel for an urgent line; elsewhere it is an ordinary note.
  let urgentArrived: (() => void) | null = null;
  const stopInbox = inbox
    ? watchInbox(
        resolve(inbox),
        (text, path, line, isUrgent) => {
          if (isUrgent && urgentArrived) {
            // Not a note for the next boundary: the running turn is cancelled and this one runs now.
            urgent.push({
              note: `An urgent message arrived from the orchestrator's inbox (${path}, line ${line}); the step you were on was interrupted for it: ${text}`,
              text,
            });
            urgentArrived?.();
            return;
          }
          const note = `A message for you arrived from the orchestrator's inbox (${path}, line ${line}): ${text}`;
          inboxTexts.set(note, text);
          notes.push(note);
        },
        err,
      )
    : null;
  return {
    takeNotes: () => notes.splice(0),
    timedOut: () => out,
    onTimeout: (stop) => {
      stopRun = stop;
      // A budget spent while the session was opening (a slow hook, a loaded machine) still stops the run.
      if (out) stop();
    },
    undelivered: () => [
      ...notes.flatMap((note) => inboxTexts.get(note) ?? []),
      ...urgent.map((message) => message.text),
    ],
    onUrgent: (handler) => {
      urgentArrived = handler;
    },
    takeUrgent: () => urgent.splice(0).map((message) => message.note),
    stop: () => {
      for (const timer of timers) clearTimeout(timer);
      stopInbox?.();
    },
  };
}

/**
 * Watches a JSON-lines file (polling: it works on every file system and through a delete and
 * re-create). Lines present when nex starts are old; each line added later is one message. A line is
 * read once it is complete (ends with a newline).
 */
function watchInbox(
  path: string,
  deliver: (text: string, path: string, line: number, urgent: boolean) => void,
  err: (text: string) => void,
) {
  let offset = sizeOf(path) ?? 0;
  let missing = sizeOf(path) === null;
  // Bounded memory: a line over the cap is dropped as it is read, and reported.
  const lines = new LineSplitter((number, bytes) =>
    err(
      `nex: inbox line ${number} is longer than ${inputLineCap()} (${bytes} bytes) and was skipped; write one message per line, each under ${inputLineCap()}.\n`,
    ),
  );
  // Numbered as the file's lines are, so an error names the line an editor shows.
  if (!missing) lines.skipTo(linesIn(path, offset));
  if (missing) err(`nex: the inbox ${path} does not exist yet; nex reads it once it is created.\n`);
  const poll = () => {
    const size = sizeOf(path);
    if (size === null) {
      if (!missing)
        err(
          `nex: the inbox ${path} was removed; messages written to a new file of that name are read from its start.\n`,
        );
      missing = true;
      offset = 0;
      lines.reset();
      lines.skipTo(0);
      return;
    }
    if (missing || size < offset) {
      // Re-created or truncated: a new file, read from its start.
      offset = 0;
      lines.reset();
      lines.skipTo(0);
      missing = false;
    }
    if (size === offset) return;
    const fd = openSync(path, "r");
    try {
      const buffer = Buffer.alloc(Math.min(size - offset, READ_CHUNK));
      while (offset < size) {
        const read = readSync(fd, buffer, 0, Math.min(buffer.length, size - offset), offset);
        if (read === 0) break;
        offset += read;
        for (const line of lines.push(buffer.subarray(0, read))) {
          if (line.text.trim() === "") continue;
          const text = messageOf(line.text);
          if (text === null)
            err(
              `nex: inbox line ${line.number} is not a message and was skipped; write one JSON object per line such as {"message":"..."}.\n`,
            );
          else deliver(text, path, line.number, isUrgent(line.text));
        }
      }
    } finally {
      closeSync(fd);
    }
  };
  watchFile(path, { interval: INBOX_POLL_MS, persistent: false }, poll);
  return () => unwatchFile(path, poll);
}

/** The text of an inbox line: `{"message":"…"}`, `{"text":"…"}`, a stream-json user line, or a JSON string. */
function messageOf(line: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value === "string") return value.trim() ? value : null;
  if (!value || typeof value !== "object") return null;
  const record = value as Record<string, unknown>;
  // `body` and `sender`: workgraph's messages (`wg msg`) as its message files hold them.
  const sender = typeof record.sender === "string" ? record.sender.trim().slice(0, 100) : "";
  const from = sender ? `(from ${sender}) ` : "";
  for (const key of ["message", "text", "content", "body"]) {
    const field = record[key];
    if (typeof field === "string" && field.trim()) return from + field;
    if (field && typeof field === "object") {
      const content = (field as Record<string, unknown>).content;
      if (typeof content === "string" && content.trim()) return from + content;
    }
  }
  return null;
}

/** `"urgent": true` or `"priority": "urgent"` on an inbox line (its text is read by `messageOf`). */
function isUrgent(line: string): boolean {
  try {
    const value = JSON.parse(line) as Record<string, unknown> | null;
    return value !== null && (value.urgent === true || value.priority === "urgent");
  } catch {
    return false;
  }
}

/** How many lines the first `size` bytes of a file hold, read a piece at a time. */
function linesIn(path: string, size: number): number {
  let count = 0;
  try {
    const fd = openSync(path, "r");
    try {
      const buffer = Buffer.alloc(Math.min(size, READ_CHUNK));
      for (let at = 0; at < size; ) {
        const read = readSync(fd, buffer, 0, Math.min(buffer.length, size - at), at);
        if (read === 0) break;
        for (let i = buffer.indexOf(10); i !== -1 && i < read; i = buffer.indexOf(10, i + 1))
          count += 1;
        at += read;
      }
    } finally {
      closeSync(fd);
    }
  } catch {
    // Gone meanwhile: numbered from the start.
  }
  return count;
}

function sizeOf(path: string): number | null {
  try {
    return statSync(path).size;
  } catch {
    return null;
  }
}

function describe(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${Math.round(ms / 1000)}s`;
}
