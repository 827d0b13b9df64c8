// `nex --chat DIR`: one conversation served from files (docs/chat-files.md). The conversation is a
// normal nex session (journal, resume, compaction), whose id the folder keeps in `.nex-session`.
// Messages are answered one at a time in id order; an urgent one cancels the running turn, as Esc
// does, and is answered next. Every inbox message gets exactly one outbox line.
import { existsSync, readFileSync, rmSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentEvent, TerminalEvent } from "../../protocol/index.ts";
import type { OpenOptions } from "../../runtime/assembly/index.ts";
import type { ConfigFlags } from "../../runtime/config/index.ts";
import type { AgentSession } from "../../runtime/session/index.ts";
import { onStopSignals, SIGNAL_EXIT, type StopSignal } from "../../runtime/session/index.ts";
import { EXIT } from "../exit-code.ts";
import { type InboxMessage, InboxReader } from "./chat-inbox.ts";
import { clearStreaming, Outbox, readCursor, writeCursor, writeStreaming } from "./chat-outbox.ts";
import { chatFolder } from "./chat-place.ts";
import { type ChatTranscript, chatTranscript } from "./chat-transcript.ts";
import { acquireHandlerLock, LOCK_FILE } from "./handler-lock.ts";
import { holdFolder } from "./held-folder.ts";

const SESSION_FILE = ".nex-session";
/** The inbox id being answered: after a crash, the next handler tells the model it was interrupted. */
const WORKING_FILE = ".nex-working";
/** The poll under the file-system events, for file systems that send none. */
const POLL_MS = 500;
const STREAM_WRITE_MS = 100;

export interface ChatFilesOptions {
  /** `--chat`'s value: a folder, or a name under the config's `chatRoot`. */
  chat: string;
  /** What the session is opened with besides resume (system prompt, role, tools). */
  open: Omit<OpenOptions, "resume" | "approvals">;
  err: (text: string) => void;
}

/** Serves the chat until a stop signal or a release marker; returns the exit status. */
export async function serveChatFiles(
  flags: ConfigFlags,
  env: Record<string, string | undefined>,
  cwd: string,
  options: ChatFilesOptions,
): Promise<number> {
  const { err } = options;
  const place = chatFolder(options.chat, flags, env, cwd);
  const dir = place.dir;
  const lock = acquireHandlerLock(dir);
  if ("heldBy" in lock) {
    const { pid, kind, startedAt } = lock.heldBy;
    err(
      `nex: the chat ${dir} is served by another handler (pid ${pid}, ${kind}, since ${startedAt || "an unknown time"}). One handler serves a chat at a time: stop that one, or ask it to hand over by creating ${join(dir, ".handler.release-requested")}, then start nex again.\n`,
    );
    return EXIT.config;
  }
  let session: AgentSession | null = null;
  try {
    const { openSession } = await import("../../runtime/assembly/index.ts");
    const known = readSessionId(dir);
    const opened = await openSession(flags, env, cwd, {
      ...options.open,
      resume: known,
      approvals: "refuse",
      ...(place.held ? { heldFolder: dir } : {}),
    });
    session = opened.session;
    for (const event of opened.events)
      if (event.type === "notice" || event.type === "context_fitted")
        err(`nex: ${"line" in event ? event.line : event.message}\n`);
    if (known === null) writeFileSync(join(dir, SESSION_FILE), `${session.info.sessionId}\n`);
    err(
      `nex: serving the chat ${dir} (session ${session.info.sessionId}, lock ${LOCK_FILE} held by pid ${process.pid}).\n`,
    );
    const held = place.held ? holdFolder(dir) : null;
    try {
      return await serve(held?.path ?? dir, session, lock.releaseRequested, err, held?.moved);
    } finally {
      held?.close();
    }
  } finally {
    await session?.close();
    clearStreaming(dir);
    lock.release();
  }
}

async function serve(
  dir: string,
  session: AgentSession,
  releaseRequested: () => boolean,
  err: (text: string) => void,
  moved: () => string | null = () => null,
): Promise<number> {
  const outbox = new Outbox(dir);
  const inbox = new InboxReader(join(dir, "inbox.jsonl"), err);
  let cursor = readCursor(dir);
  let highest = cursor;
  const pending: InboxMessage[] = [];
  /** Ids read and not answered yet: the cursor stops below the lowest. */
  const open = new Set<number>();
  let running: InboxMessage | null = null;
  let urgentCut: InboxMessage | null = null;
  let stoppedBy: StopSignal | null = null;
  let displaced: string | null = null;
  let wake: (() => void) | null = null;
  const notify = () => {
    const resolve = wake;
    wake = null;
    resolve?.();
  };

  const collect = () => {
    displaced ??= moved();
    if (displaced) {
      session.interrupt();
      notify();
      return;
    }
    for (const message of inbox.read()) {
      if (message.id <= highest) continue;
      highest = message.id;
      if (outbox.has(message.requestId)) continue;
      open.add(message.id);
      if (!message.urgent) {
        pending.push(message);
        continue;
      }
      // Ahead of the ordinary ones (after earlier urgent ones), and the running turn is cancelled.
      const at = pending.findIndex((m) => !m.urgent);
      pending.splice(at === -1 ? pending.length : at, 0, message);
      if (running && !urgentCut) {
        urgentCut = message;
        session.interrupt(`an urgent message (inbox id ${message.id}) arrived`);
      }
    }
    moveCursor();
    notify();
  };
  const moveCursor = () => {
    const lowestOpen = open.size === 0 ? highest + 1 : Math.min(...open);
    const next = lowestOpen - 1;
    if (next > cursor) {
      cursor = next;
      writeCursor(dir, cursor);
    }
  };

  const watcher = watchFolder(dir, collect);
  const poll = setInterval(collect, POLL_MS);
  const stopWatching = onStopSignals((signal, count) => {
    if (count > 1) process.exit(SIGNAL_EXIT[signal]);
    stoppedBy = signal;
    session.interrupt();
    notify();
  });
  const crashed = readWorking(dir);
  try {
    collect();
    for (;;) {
      if (stoppedBy) return SIGNAL_EXIT[stoppedBy];
      if (displaced) {
        err(`nex: ${displaced}\n`);
        return EXIT.failure;
      }
      if (releaseRequested()) {
        err("nex: a release was requested; handing the chat over.\n");
        return EXIT.done;
      }
      const next = pending.shift();
      if (!next) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        continue;
      }
      running = next;
      urgentCut = null;
      writeFileSync(join(dir, WORKING_FILE), `${next.id}\n`);
      const prompt =
        crashed === next.id
          ? `[nex: the previous handler of this chat stopped (it crashed or was killed) while answering this message; what it did is in the conversation above. Check before repeating a step.]\n\n${next.content}`
          : next.content;
      const { terminal, transcript } = await answer(session, prompt, dir);
      running = null;
      // A stop signal cut the turn: no reply, the next handler answers the message.
      if (stoppedBy) return SIGNAL_EXIT[stoppedBy];
      outbox.append(replyFor(next, terminal, urgentCut, transcript));
      rmSync(join(dir, WORKING_FILE), { force: true });
      clearStreaming(dir);
      open.delete(next.id);
      moveCursor();
    }
  } finally {
    clearInterval(poll);
    watcher?.close();
    stopWatching();
  }
}

/** Runs one message, keeping `.streaming` to the reply so far, its tool calls as boxes. */
async function answer(
  session: AgentSession,
  prompt: string,
  dir: string,
): Promise<{ terminal: TerminalEvent; transcript: ChatTranscript }> {
  const transcript = chatTranscript();
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    timer = null;
    writeStreaming(dir, transcript.text());
  };
  const unsubscribe = session.subscribe((event: AgentEvent) => {
    if (transcript.add(event)) timer ??= setTimeout(flush, STREAM_WRITE_MS);
  });
  try {
    return { terminal: await session.submit(prompt), transcript };
  } finally {
    unsubscribe();
    if (timer) clearTimeout(timer);
  }
}

function replyFor(
  message: InboxMessage,
  terminal: TerminalEvent,
  cutBy: InboxMessage | null,
  transcript: ChatTranscript,
): Parameters<Outbox["append"]>[0] {
  const base = { requestId: message.requestId, inboxId: message.id };
  // The steps (tool calls) with the answer, for the reader's expanded view; the answer alone is `content`.
  const full = transcript.hasTools() ? { fullResponse: transcript.text() } : {};
  if (terminal.type === "done")
    return { ...base, role: "coordinator", content: terminal.finalText, ...full };
  if (terminal.type === "aborted")
    return {
      ...base,
      role: "system-error",
      content: cutBy
        ? `Interrupted: the urgent message ${cutBy.id} (request ${cutBy.requestId}) cancelled this turn; it is answered next. The conversation keeps what was done.`
        : `Interrupted: ${terminal.reason}.`,
      ...full,
    };
  return {
    ...base,
    role: "system-error",
    content: `nex could not answer: ${terminal.message}`,
    ...full,
  };
}

function watchFolder(dir: string, onChange: () => void): { close(): void } | null {
  try {
    const watcher = watch(dir, { persistent: false }, (_event, name) => {
      if (name === null || name === "inbox.jsonl" || name === ".handler.release-requested")
        onChange();
    });
    // A watcher that fails later leaves the poll.
    watcher.on("error", () => watcher.close());
    return watcher;
  } catch {
    return null;
  }
}

function readSessionId(dir: string): string | null {
  try {
    const id = readFileSync(join(dir, SESSION_FILE), "utf8").trim();
    return id === "" ? null : id;
  } catch {
    return null;
  }
}

function readWorking(dir: string): number | null {
  const path = join(dir, WORKING_FILE);
  if (!existsSync(path)) return null;
  const id = Number(readFileSync(path, "utf8").trim());
  return Number.isSafeInteger(id) ? id : null;
}
