// `nex --chat DIR`: one conversation served from files (docs/chat-files.md). The conversation is a
// normal nex session (journal, resume, compaction), whose id the folder keeps in `.nex-session`.
// Messages are answered one at a time in id order; an urgent one cancels the running turn, as Esc
// does, and is answered next. Every inbox message gets exactly one outbox line.
import { existsSync, readFileSync, rmSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentEvent, TerminalEvent } from "../../protocol/index.ts";
import type { OpenOptions } from "../../runtime/assembly/index.ts";
import type { ConfigFlags } from "../../runtime/config/index.ts";
import type { AttachmentRef, GivenAttachments } from "../../runtime/extensions/index.ts";
import type { AgentSession, PromptExtra } from "../../runtime/session/index.ts";
import { onStopSignals, SIGNAL_EXIT, type StopSignal } from "../../runtime/session/index.ts";
import { EXIT } from "../exit-code.ts";
import { approvalAnswer, ChatApprovals } from "./chat-approvals.ts";
import { type InboxMessage, InboxReader } from "./chat-inbox.ts";
import { clearStreaming, Outbox, type OutboxReply, writeStreaming } from "./chat-outbox.ts";
import { chatFolder, SESSION_FILE, WORKING_FILE } from "./chat-place.ts";
import { ChatQueue } from "./chat-queue.ts";
import { type ChatTranscript, chatTranscript } from "./chat-transcript.ts";
import { acquireHandlerLock, LOCK_FILE } from "./handler-lock.ts";
import { holdFolder } from "./held-folder.ts";

/** The poll under the file-system events, for file systems that send none. */
const POLL_MS = 500;
const STREAM_WRITE_MS = 100;

/** What a message's attachments give the model (runtime/extensions/message-attachments.ts). */
type Attach = (refs: AttachmentRef[]) => Promise<GivenAttachments>;

export interface ChatFilesOptions {
  /** `--chat`'s value: a folder, or a name under the config's `chatRoot`. */
  chat: string;
  /** What the session is opened with besides resume (system prompt, role, tools). */
  open: Omit<OpenOptions, "resume" | "approvals">;
  /** How long an approval asked in the chat waits for its answer; 0: none is asked. */
  approvalTimeoutS: number;
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
      // A person answers in the chat, unless --approval-timeout 0 said nobody will.
      approvals: options.approvalTimeoutS ? "interactive" : "refuse",
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
    const served = session;
    const attach: Attach = async (refs) =>
      (await import("../../runtime/extensions/index.ts")).readMessageAttachments(refs, {
        config: place.config,
        env,
        chatDir: dir,
        model: served.info.model,
        window: served.info.contextWindow,
      });
    try {
      return await serve(session, {
        dir: held?.path ?? dir,
        releaseRequested: lock.releaseRequested,
        err,
        attach,
        approvalTimeoutMs: options.approvalTimeoutS ? options.approvalTimeoutS * 1000 : null,
        moved: held?.moved ?? (() => null),
      });
    } finally {
      held?.close();
    }
  } finally {
    await session?.close();
    clearStreaming(dir);
    lock.release();
  }
}

/** What serving a chat folder needs besides its session. */
interface ServeParts {
  /** The folder's path as nex reads it (through a handle when the folder is held). */
  dir: string;
  releaseRequested: () => boolean;
  err: (text: string) => void;
  attach: Attach;
  /** How long an approval question waits; null: none is asked (refused as in `nex run`). */
  approvalTimeoutMs: number | null;
  moved: () => string | null;
}

async function serve(session: AgentSession, parts: ServeParts): Promise<number> {
  const { dir, err } = parts;
  const outbox = new Outbox(dir, err);
  const inbox = new InboxReader(join(dir, "inbox.jsonl"), err);
  const queue = new ChatQueue(dir);
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
  const approvals = new ChatApprovals({
    session,
    outbox,
    running: () => running,
    timeoutMs: parts.approvalTimeoutMs ?? 0,
    err,
  });
  const collect = () => {
    displaced ??= parts.moved();
    if (displaced) {
      session.interrupt();
      notify();
      return;
    }
    for (const message of inbox.read()) {
      if (!queue.isNew(message) || outbox.has(message.requestId)) continue;
      const given = approvalAnswer(message);
      if (given) {
        queue.hold(message.id);
        approvals.take(message, given, () => queue.done(message.id));
        continue;
      }
      queue.queue(message);
      // The running turn is cancelled for an urgent message, which is answered next.
      if (message.urgent && running && !urgentCut) {
        urgentCut = message;
        session.interrupt(`an urgent message (inbox id ${message.id}) arrived`);
      }
    }
    queue.moveCursor();
    notify();
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
      if (parts.releaseRequested()) {
        err("nex: a release was requested; handing the chat over.\n");
        return EXIT.done;
      }
      const next = queue.next();
      if (!next) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        continue;
      }
      running = next;
      urgentCut = null;
      writeFileSync(join(dir, WORKING_FILE), `${next.id}\n`);
      const given = next.attachments.length > 0 ? await parts.attach(next.attachments) : null;
      const { terminal, transcript } = await answer(
        session,
        promptFor(next, crashed),
        dir,
        given ?? {},
      );
      running = null;
      const notes = [
        ...(given?.refused.length ? [attachmentNote(given.refused)] : []),
        ...approvals.endTurn(),
      ];
      // A stop signal cut the turn: no reply, the next handler answers the message.
      if (stoppedBy) return SIGNAL_EXIT[stoppedBy];
      await outbox.append(withNotes(replyFor(next, terminal, urgentCut, transcript), notes));
      rmSync(join(dir, WORKING_FILE), { force: true });
      clearStreaming(dir);
      queue.done(next.id);
    }
  } finally {
    clearInterval(poll);
    watcher?.close();
    stopWatching();
    approvals.close();
    await approvals.settled();
  }
}

/** The message as the model gets it: told when the previous handler stopped while answering it. */
function promptFor(message: InboxMessage, crashedOn: number | null): string {
  if (crashedOn !== message.id) return message.content;
  return `[nex: the previous handler of this chat stopped (it crashed or was killed) while answering this message; what it did is in the conversation above. Check before repeating a step.]\n\n${message.content}`;
}

/** Runs one message, keeping `.streaming` to the reply so far, its tool calls as boxes. */
async function answer(
  session: AgentSession,
  prompt: string,
  dir: string,
  extra: PromptExtra,
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
    return { terminal: await session.submit(prompt, extra), transcript };
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
): OutboxReply {
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

/** The reply, with what the sender should know about the turn (attachments not given, approvals). */
function withNotes(reply: OutboxReply, notes: string[]): OutboxReply {
  if (notes.length === 0) return reply;
  return {
    ...reply,
    content: `${reply.content}\n\n${notes.map((note) => `[nex: ${note}]`).join("\n")}`,
  };
}

function attachmentNote(refused: string[]): string {
  const lines = refused.map((line) => `- ${line}`).join("\n");
  return `${refused.length === 1 ? "an attachment was" : `${refused.length} attachments were`} not given to the model:\n${lines}`;
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
