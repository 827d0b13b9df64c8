import { StopReason } from "../agent/interrupted.ts";
import { type Compactor, runLoop } from "../agent/loop.ts";
import type {
  AgentEvent,
  CompactResult,
  ImagePart,
  Message,
  ModelSwitchResult,
  NoteKind,
  PermissionAnswer,
  PermissionMode,
  ReadRecord,
  StreamFn,
  TerminalEvent,
  ToolHost,
  ToolOutcome,
  UndoResult,
} from "../protocol/index.ts";
import { isTerminal } from "../protocol/index.ts";
import { type SecretScrubber, scrubDeep } from "../session/index.ts";
import type { AgentSession, SessionInfo, SessionSummary } from "./agent-session.ts";
import type { EffortOrOff } from "./config.ts";
import { directCommand, directCommandMessage } from "./direct-command.ts";
import type { CommandRun, Expansion } from "./extensions/index.ts";
import type { Hooks } from "./hooks/index.ts";
import { completePath } from "./path-completion.ts";
import type { Price } from "./prices.ts";
import type { SessionBudget } from "./request-budget.ts";
import { type PromptMark, type RewindPoint, rewindPoints, type UndoStepInfo } from "./rewind.ts";
import { redactCallUrls } from "./url-redaction.ts";
import type { PendingNote, UserNotes } from "./user-notes.ts";

/** Where a session's records go; backed by the session journal. */
export interface JournalSink {
  message(message: Message): void;
  event(event: AgentEvent): void;
  ledger(record: ReadRecord): void;
  /** A change to the workspace that `undo` can revert (the before-image lives in the checkpoint store). */
  checkpoint(turn: number, description: string): void;
  usage(inputTokens: number, outputTokens: number): void;
  /** The conversation restarted (`/clear`): a resume starts after this point, with an empty ledger. */
  cleared(): void;
  /** `/rewind`: the newest `drop` messages left the conversation; the ledger restarts empty. */
  rewound(drop: number): void;
  /** Makes what was appended durable (fsync); called at turn boundaries. */
  sync(): void;
  close(): void;
}

/** The tools plus what the session needs beyond the loop's view. */
export interface SessionTools extends ToolHost {
  setMode(mode: PermissionMode): void;
  /** Stops every background job (the session ends). */
  stopJobs?(): Promise<string[]>;
  /** Records what `@path` showed the model of a file (its first bytes) as read. */
  recordAttachment?(name: string, shown: Buffer): Promise<boolean>;
  /** What the jobs tool says, for a person (`/bg`). */
  jobsForUser?(action: "list" | "output" | "stop", id?: number): Promise<string>;
  undo(turns: number): Promise<UndoResult>;
  /** What each step of undo would restore, newest first, as text. */
  undoPreview?(): Promise<string>;
  /** Undo's steps, newest first: when each first changed something and what it would restore. */
  undoSteps?(): Promise<UndoStepInfo[]>;
  /** A new user prompt starts (undo's steps are prompts). */
  beginPrompt?(): void;
  /** Forgets what the model read (`/clear`); runs end with no write in parts under way. */
  forgetConversation(): Promise<void>;
}

/** How permission requests are answered. */
export type ApprovalPolicy = "interactive" | "refuse";

/** What a running session is built from; `open-session.ts` assembles it. */
export interface SessionParts {
  info: SessionInfo;
  /** The price of a model, when known (config, else nex's list prices). */
  price?: (model: string) => Price | null;
  stream: StreamFn;
  tools: SessionTools;
  journal: JournalSink;
  system: string;
  messages: Message[];
  budget: SessionBudget;
  compactor: Compactor | null;
  /** Before each request: old large results become stubs naming their stored copy. */
  shrink?: (system: string, messages: Message[]) => AgentEvent[];
  /** Compacts on request (`/compact`, `nex compact`): the new conversation (null: unchanged) and what happened. */
  compactNow: (
    messages: Message[],
    signal: AbortSignal,
  ) => Promise<{ messages: Message[] | null; result: CompactResult }>;
  approvals: ApprovalPolicy;
  maxTurns: number;
  listSessions: () => Promise<SessionSummary[]>;
  /** Another model for the next requests: its client (null when the switch failed) and what happened. */
  switchModel: (model: string) => Promise<{ stream: StreamFn | null; result: ModelSwitchResult }>;
  /** The user's hooks (none: every call is a no-op). */
  hooks?: Hooks;
  /** Turns a typed prompt into what the model gets (a custom command, `@` attachments). */
  expand?: (prompt: string, run: (command: string) => Promise<CommandRun>) => Promise<Expansion>;
  /** What the endpoint serves, as the line `/model` shows. */
  listModels?: () => Promise<string>;
  /** Sets the reasoning effort for the next requests; returns the line to show. */
  setReasoning?: (effort: EffortOrOff | null) => string;
  /** nex's secrets, replaced in every event before a UI, `--json` or the journal sees it. */
  secrets?: SecretScrubber;
  /** Runs after the journal is closed (the MCP servers stop). */
  onClose?: () => Promise<void>;
  /** `/mcp`: the MCP servers' state, tools and last error. */
  mcpStatus?: () => string;
  /** Messages typed while the model works (see user-notes.ts). */
  notes?: UserNotes;
}

/** How many times Stop hooks may send the model back to work in one prompt. */
const MAX_STOP_CONTINUATIONS = 3;

/** Events worth keeping in the journal beside the messages. */
const JOURNALED = new Set<AgentEvent["type"]>([
  "request_failed",
  "tool_call_refused",
  "notice",
  "context_fitted",
  "error",
  "aborted",
  "done",
]);

/** After this many consecutive failed runs the session stops sending requests. */
const CIRCUIT_BREAKER_AT = 3;

/** The `AgentSession` a UI drives: runs the loop, fans its events out, journals, answers permissions. */
export class NexSession implements AgentSession {
  readonly info: SessionInfo;
  private readonly parts: SessionParts;
  private readonly listeners = new Set<(event: AgentEvent) => void>();
  private readonly pendingApprovals = new Map<string, (answer: PermissionAnswer) => void>();
  /** Answers that arrived before the loop asked (a UI may answer from inside its event listener). */
  private readonly earlyAnswers = new Map<string, PermissionAnswer>();
  /** Calls the user was asked about and has not answered: only these take an answer. */
  private readonly asked = new Set<string>();
  private controller: AbortController | null = null;
  /** The prompt running now, so `close` can wait for it to end before closing the journal. */
  private running: Promise<TerminalEvent> | null = null;
  private turnOffset = 0;
  private highestTurn = 0;
  private promptCommands = 0;
  private startContext: string | null = null;
  private requestCounter = 0;
  private consecutiveFailures = 0;
  private messages: Message[];
  /** The prompts of this process, for `/rewind` (see rewind.ts). */
  private readonly promptMarks: PromptMark[] = [];

  constructor(parts: SessionParts) {
    this.parts = parts;
    this.info = { ...parts.info };
    this.messages = parts.messages;
  }

  /** Numbers every request of the session, task or compaction. */
  nextRequestId(): number {
    this.requestCounter += 1;
    return this.requestCounter;
  }

  /** Text from outside the event stream (a file an editor is shown) with nex's secrets replaced. */
  redact(text: string): string {
    return this.parts.secrets ? this.parts.secrets.scrub(text).text : text;
  }

  history(): readonly Message[] {
    return this.messages;
  }

  subscribe(listener: (event: AgentEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Sends an event to the journal and to every listener, with nex's secrets replaced. */
  emit(raw: AgentEvent): void {
    const event = redactCallUrls(this.scrubbed(raw));
    if (event.type === "permission_requested") this.asked.add(event.callId);
    // A child's conversation is kept in the parent's journal as events, which resume leaves out of
    // the parent's history; its requests count in the session's usage, not in the window's fill.
    if (event.agent) {
      if (event.type === "message_added" || JOURNALED.has(event.type))
        this.parts.journal.event(event);
      this.notify(event);
      if (event.type === "request_finished" && event.usage) {
        const { inputTokens, outputTokens } = event.usage;
        this.parts.journal.usage(inputTokens, outputTokens);
        // Counted in the usage shown; a UI keeps the context fill of the parent's conversation.
        this.notify({
          type: "usage",
          inputTokens,
          outputTokens,
          contextTokens: inputTokens + outputTokens,
          contextWindow: this.parts.budget.window(),
          agent: event.agent,
        });
      }
      return;
    }
    if (event.type === "message_added") this.parts.journal.message(event.message);
    else if (JOURNALED.has(event.type)) this.parts.journal.event(event);
    this.notify(withoutImageBytes(event));
    // Someone must answer: a Notification hook (a desktop notifier, say) can tell them.
    if (event.type === "permission_requested" && this.parts.approvals === "interactive")
      void this.parts.hooks?.notification(`nex needs your permission: ${event.summary}`);
    if (event.type === "tool_result" && !event.isError && event.details?.type === "todo")
      this.emit({ type: "todo_updated", items: event.details.items });
    // A summary request's prompt is part of the conversation, not all of it: its usage says nothing
    // of the conversation's size (and would look like a server cutting the prompt).
    if (event.type === "request_finished" && event.usage && event.purpose === undefined) {
      const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } = event.usage;
      this.parts.journal.usage(inputTokens, outputTokens);
      // The prompt of this request was the messages so far; the answer is appended after this
      // event and estimated with whatever follows it.
      const warning = this.parts.budget.observeUsage(inputTokens, 0, this.messages.length);
      if (warning) this.emit({ type: "notice", message: warning });
      this.emit({
        type: "usage",
        inputTokens,
        outputTokens,
        ...(cacheReadTokens !== undefined ? { cacheReadTokens } : {}),
        ...(cacheWriteTokens !== undefined ? { cacheWriteTokens } : {}),
        contextTokens: inputTokens + outputTokens,
        contextWindow: this.parts.budget.window(),
      });
    }
  }

  async submit(prompt: string): Promise<TerminalEvent> {
    if (this.controller) {
      return this.end({
        type: "error",
        code: "config",
        message: "A task is already running in this session; wait for it or interrupt it first.",
      });
    }
    if (this.consecutiveFailures >= CIRCUIT_BREAKER_AT) {
      return this.end({
        type: "error",
        code: "network",
        message: `${this.consecutiveFailures} tasks in a row failed, so this session sends no more requests. Read the errors above (the endpoint is ${this.info.host}), then continue with \`nex resume ${this.info.sessionId}\`.`,
      });
    }
    const controller = new AbortController();
    this.controller = controller;
    const run = this.run(prompt, controller.signal);
    this.running = run;
    try {
      return await run;
    } finally {
      this.running = null;
      this.controller = null;
    }
  }

  /** One prompt to its end. A fault of ours (a journal write failing) ends it with an error event, never a rejection. */
  private async run(prompt: string, signal: AbortSignal): Promise<TerminalEvent> {
    const sentAt = new Date().toISOString();
    let marked = false;
    // The tools number turns across the whole session, so each prompt's turns get checkpoints of their own.
    this.turnOffset = this.highestTurn;
    // Undo takes whole prompts as its steps.
    this.parts.tools.beginPrompt?.();
    try {
      const command = directCommand(prompt);
      if (command !== null) return this.end(await this.runDirect(command, signal));
      const expanded = await this.expand(prompt, signal);
      if (expanded.type !== "prompt") return this.end(expanded);
      let text = expanded.text;
      let images = expanded.images;
      let terminal: TerminalEvent | null = null;
      // A Stop hook may send the model back to work (bounded): the prompt keeps one terminal event.
      for (let again = 0; ; again++) {
        const loop = runLoop(text, {
          stream: this.parts.stream,
          tools: this.journaledTools(),
          model: this.info.model,
          system: this.parts.system,
          messages: this.messages,
          budget: this.parts.budget,
          compact: this.parts.compactor,
          ...(this.parts.shrink ? { shrink: this.parts.shrink } : {}),
          approve: (request, approvalSignal) => this.approve(request.callId, approvalSignal),
          maxTurns: this.parts.maxTurns,
          signal,
          nextRequestId: () => this.nextRequestId(),
          ...(images.length > 0 ? { images } : {}),
        });
        images = [];
        terminal = null;
        for await (const event of loop) {
          if (isTerminal(event)) {
            terminal = this.scrubbed(event);
            continue;
          }
          if (!marked && event.type === "message_added" && event.message.type === "user") {
            marked = true;
            this.promptMarks.push({ message: event.message, text: prompt, time: sentAt });
          }
          this.emit(event);
          // A turn's records (its response and tool results) are made durable as the next request starts.
          if (event.type === "request_started") this.parts.journal.sync();
        }
        const more =
          terminal?.type === "done" && again < MAX_STOP_CONTINUATIONS && !signal.aborted
            ? ((await this.parts.hooks?.stop(terminal.finalText, again > 0)) ?? null)
            : null;
        if (more === null) break;
        this.emit({ type: "notice", message: `A Stop hook asked the model to go on: ${more}` });
        text = `[Stop hook] The task is not finished: ${more}`;
      }
      if (terminal) this.emit(terminal);
      const end = terminal ?? {
        type: "error",
        code: "internal",
        message: "The loop ended without a result; this is a bug in nex, please report it.",
      };
      if (end.type === "error" && end.code !== "repeated_failure" && end.code !== "turn_limit")
        this.consecutiveFailures++;
      else if (end.type === "done") this.consecutiveFailures = 0;
      this.parts.journal.sync();
      return end;
    } catch (error) {
      this.consecutiveFailures++;
      const end: TerminalEvent = this.scrubbed({
        type: "error",
        code: "internal",
        message: `nex stopped this task after a fault of its own: ${(error as Error).message}. Work done so far is on disk; the session journal may miss its last records. Please report this.`,
      });
      this.notify(end);
      return end;
    }
  }

  interrupt(reason?: string): void {
    this.controller?.abort(reason === undefined ? undefined : new StopReason(reason));
    this.parts.hooks?.interrupt();
    this.asked.clear();
    this.earlyAnswers.clear();
    for (const [callId, resolve] of this.pendingApprovals) {
      this.pendingApprovals.delete(callId);
      resolve({ type: "deny", reason: "interrupted" });
    }
  }

  answerPermission(callId: string, answer: PermissionAnswer): void {
    // A stray or late answer (after a cancel, for a call id guessed ahead) never approves a later call.
    if (!this.asked.delete(callId)) return;
    const resolve = this.pendingApprovals.get(callId);
    if (!resolve) {
      this.earlyAnswers.set(callId, answer);
      return;
    }
    this.pendingApprovals.delete(callId);
    resolve(answer);
  }

  setPermissionMode(mode: PermissionMode): void {
    this.info.permissionMode = mode;
    this.parts.tools.setMode(mode);
    this.emit({ type: "notice", message: `Permission mode is now ${mode}.` });
  }

  async undoPreview(): Promise<string> {
    return this.parts.tools.undoPreview
      ? this.parts.tools.undoPreview()
      : "This session cannot list undo steps.";
  }

  async undo(turns: number, why: "undo" | "rewind" = "undo"): Promise<UndoResult> {
    const result = await this.parts.tools.undo(turns);
    // A rewind cuts the conversation instead: no note of it goes to the model.
    if (why === "rewind") return result;
    const note: Message = {
      type: "user",
      text: `[nex] The user undid the file changes of the last ${turns} prompt(s): ${result.report}`,
    };
    this.messages.push(note);
    this.emit({ type: "message_added", message: note });
    this.parts.journal.sync();
    return result;
  }

  async compact(): Promise<CompactResult> {
    if (this.controller)
      return { kind: "busy", reason: "A task is running; compact when it has ended." };
    const controller = new AbortController();
    this.controller = controller;
    try {
      const { messages, result } = await this.parts.compactNow(this.messages, controller.signal);
      if (messages) {
        this.messages.splice(0, this.messages.length, ...messages);
        this.parts.budget.forgetUsage();
        this.parts.journal.sync();
      }
      return result;
    } finally {
      this.controller = null;
    }
  }

  async setModel(model: string): Promise<ModelSwitchResult> {
    const { stream, result } = await this.parts.switchModel(model);
    if (stream && result.kind === "switched") {
      this.parts.stream = stream;
      this.info.model = result.model;
      this.info.contextWindow = this.parts.budget.window();
    }
    return result;
  }

  async listModels(): Promise<string> {
    return this.parts.listModels ? this.parts.listModels() : `Using ${this.info.model}.`;
  }

  setReasoningEffort(effort: EffortOrOff | null): string {
    return this.parts.setReasoning
      ? this.parts.setReasoning(effort)
      : "This session cannot change its reasoning effort.";
  }

  async clear(): Promise<{ cleared: boolean; line: string }> {
    if (this.controller)
      return {
        cleared: false,
        line: "A task is running; clear when it has ended (Esc interrupts it).",
      };
    this.messages = [];
    this.parts.budget.forgetUsage();
    await this.parts.tools.forgetConversation();
    this.parts.journal.cleared();
    this.parts.journal.sync();
    return {
      cleared: true,
      line: "Started a fresh conversation: the model remembers nothing before this point and must read files again before changing them. /undo still reaches earlier turns.",
    };
  }

  priceOf(model: string): Price | null {
    return this.parts.price?.(model) ?? null;
  }

  async fork(): Promise<{ sessionId: string | null; line: string }> {
    if (this.controller)
      return {
        sessionId: null,
        line: "A task is running; fork when it has ended (Esc interrupts it).",
      };
    this.parts.journal.sync();
    const { forkJournal } = await import("./fork-session.ts");
    const from = this.info.sessionId;
    const fork = await forkJournal(this.info.journalPath, from);
    return {
      sessionId: fork.sessionId,
      line: `Forked session ${from} as ${fork.sessionId}, with the same conversation; the chat goes on in the fork. Resume the original with \`nex resume ${from}\`, the fork with \`nex resume ${fork.sessionId}\`. /undo in the fork reaches the prompts from here on.`,
    };
  }

  async rewindPoints(): Promise<RewindPoint[]> {
    const steps = (await this.parts.tools.undoSteps?.()) ?? [];
    return rewindPoints(this.promptMarks, this.messages, steps);
  }

  async rewind(number: number): Promise<{ rewound: boolean; line: string; prompt: string | null }> {
    const no = (line: string) => ({ rewound: false, line, prompt: null });
    if (this.controller)
      return no("A task is running; rewind when it has ended (Esc interrupts it).");
    const point = (await this.rewindPoints()).find((p) => p.number === number);
    if (!point) return no(`No prompt ${number} to rewind to; /rewind lists them.`);
    const mark = this.promptMarks.find((m) => m.time === point.time && m.text === point.text);
    const index = mark ? this.messages.indexOf(mark.message) : -1;
    if (!mark || index < 0) return no(`Prompt ${number} is no longer in the conversation.`);
    let files = "No file was changed since then.";
    if (point.steps > 0) {
      const result = await this.undo(point.steps, "rewind");
      // Files that could not be restored: the conversation stays whole, so nothing disagrees silently.
      if (result.kind === "partial")
        return no(
          `${result.report}\nThe conversation was not rewound, since not every file could be restored; see above, then /rewind again or /undo.`,
        );
      // Changed outside nex since: left as it is (never clobbered). The user decides whether the
      // conversation goes back anyway: the same rewind again cuts it, the left-alone files untouched.
      if (result.leftAlone.length > 0)
        return no(
          `${result.report}\nThe conversation was not rewound, since these files were changed outside nex and stay as they are. Rewind to prompt ${number} again to cut the conversation anyway (those files are not touched), or leave it here.`,
        );
      files = result.report;
    }
    const gone = this.messages.length - index;
    this.messages.splice(index);
    this.promptMarks.splice(this.promptMarks.indexOf(mark));
    this.parts.budget.forgetUsage();
    await this.parts.tools.forgetConversation();
    // One record, so a nex killed while writing it leaves the rewind out whole, never half the
    // conversation; a resume reads back the rewound conversation, and every earlier record stays.
    this.parts.journal.rewound(gone);
    this.parts.journal.sync();
    return {
      rewound: true,
      line: `Rewound to before prompt ${number}: ${gone} message${gone === 1 ? "" : "s"} left the conversation (kept in the journal). ${files}`,
      prompt: mark.text,
    };
  }

  listSessions(): Promise<SessionSummary[]> {
    return this.parts.listSessions();
  }

  async close(): Promise<void> {
    this.interrupt();
    await this.running;
    await this.parts.tools.stopJobs?.();
    this.parts.journal.sync();
    this.parts.journal.close();
    await this.parts.onClose?.();
  }

  completePath(partial: string): string[] {
    return completePath(this.info.workspace, partial);
  }

  /** `/bg` (no id: the list), `/bg ID` (its last lines), `/bg stop ID`: the words to show. */
  async jobsCommand(args: string): Promise<string> {
    const jobs = this.parts.tools.jobsForUser;
    if (!jobs) return "This session runs no background jobs.";
    const words = args.trim().split(/\s+/).filter(Boolean);
    const id = Number(words.at(-1));
    const text =
      words.length === 0
        ? await jobs("list")
        : words.length === 1 && Number.isInteger(id) && id > 0
          ? await jobs("output", id)
          : words.length === 2 && words[0] === "stop" && Number.isInteger(id) && id > 0
            ? await jobs("stop", id)
            : "Usage: /bg lists the background jobs, /bg ID shows a job's last lines, /bg stop ID stops it.";
    return this.parts.secrets?.scrub(text).text ?? text;
  }

  /** Stops every background job now (the chat is ending): one line per job it stopped. */
  async stopBackgroundJobs(): Promise<string[]> {
    const lines = (await this.parts.tools.stopJobs?.()) ?? [];
    return lines.map((line) => this.parts.secrets?.scrub(line).text ?? line);
  }

  /** `/mcp`'s text: each MCP server's state, tools and last error. */
  mcpStatus(): string {
    const text = this.parts.mcpStatus?.();
    if (text !== undefined) return this.parts.secrets?.scrub(text).text ?? text;
    return "No MCP servers configured. Add one with `nex mcp add NAME -- COMMAND ARGS...`, `mcpServers` in the config, or --mcp-config FILE.";
  }

  /** Sends an event to every listener; a listener that throws does not keep the others from it. */
  private notify(event: AgentEvent): void {
    let failure: unknown = null;
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure) throw failure;
  }

  private end(event: TerminalEvent): TerminalEvent {
    this.emit(event);
    return this.scrubbed(event);
  }

  private scrubbed<E extends AgentEvent>(event: E): E {
    return this.parts.secrets ? scrubDeep(event, this.parts.secrets) : event;
  }

  /**
   * The tools as a child agent sees them: its calls run in the parent's turn (so undo takes them with
   * the parent's prompt) under its own read ledger; its changes are journaled like the parent's.
   */
  childTools(agent: string, turn: number): ToolHost {
    const tools = this.parts.tools;
    return {
      specs: () => tools.specs(),
      readOnly: (name) => tools.readOnly?.(name) ?? false,
      permission: (call) => tools.permission({ ...call, turn, agent }),
      rememberApproval: (call) => tools.rememberApproval({ ...call, turn, agent }),
      execute: async (call, signal) => {
        const outcome = await tools.execute({ ...call, turn, agent }, signal);
        const change = describeChange(outcome.details);
        if (change) this.parts.journal.checkpoint(turn, `${agent}: ${change}`);
        return outcome;
      },
      // A write in parts the child left unfinished is its to finish, or is discarded when it ends.
      unfinishedWrites: () => tools.unfinishedWrites?.() ?? [],
      discardUnfinished: async () => (await tools.discardUnfinished?.()) ?? [],
    };
  }

  queueNote(text: string, kind: NoteKind): PendingNote | { refused: string } {
    if (!this.parts.notes) return { refused: "this session takes no messages during a turn" };
    const note = this.parts.notes.add(text, kind);
    if (!("refused" in note)) this.emit({ type: "note_queued", ...note });
    return note;
  }

  unqueueNote(id: number): boolean {
    return this.parts.notes?.remove(id) ?? false;
  }

  takePendingNotes(): PendingNote[] {
    return this.parts.notes?.takeAll() ?? [];
  }

  /** Asks the user about a child agent's call, as about the session's own. */
  approveCall(callId: string, signal: AbortSignal): Promise<PermissionAnswer> {
    return this.approve(callId, signal);
  }

  private approve(callId: string, signal: AbortSignal): Promise<PermissionAnswer> {
    if (this.parts.approvals === "refuse") {
      return Promise.resolve({
        type: "deny",
        reason:
          "headless mode without --yes refuses actions that need approval; rerun with --yes (or --mode auto_edit for file edits)",
      });
    }
    if (signal.aborted) return Promise.resolve({ type: "deny", reason: "interrupted" });
    const early = this.earlyAnswers.get(callId);
    if (early) {
      this.earlyAnswers.delete(callId);
      return Promise.resolve(early);
    }
    return new Promise((resolve) => this.pendingApprovals.set(callId, resolve));
  }

  /**
   * The prompt the model gets (a custom command's text, `@` attachments), or the terminal event that
   * ends the prompt before any request: nothing is sent when a part of the expansion failed.
   */
  private async expand(
    prompt: string,
    signal: AbortSignal,
  ): Promise<{ type: "prompt"; text: string; images: ImagePart[] } | TerminalEvent> {
    const hooked = await this.parts.hooks?.userPromptSubmit(prompt);
    if (hooked && "blocked" in hooked)
      return {
        type: "error",
        code: "config",
        message: `A UserPromptSubmit hook blocked this prompt, so nothing was sent: ${hooked.blocked}`,
      };
    // What SessionStart hooks said comes with the first prompt; a prompt hook's, with its own.
    const context = [this.startContext, hooked?.context ?? null].filter((c) => c !== null);
    this.startContext = null;
    // What `@` attached and command lines printed is as untrusted as what a tool reads: the model
    // gets the prompt with nex's secrets replaced.
    const withContext = (text: string) =>
      this.redact(context.length === 0 ? text : `${text}\n\n[hook context]\n${context.join("\n")}`);
    if (!this.parts.expand) return { type: "prompt", text: withContext(prompt), images: [] };
    const expansion = await this.parts.expand(prompt, (command) =>
      this.runForPrompt(command, signal),
    );
    if (signal.aborted) return { type: "aborted", reason: "interrupted by the user" };
    if (!expansion.ok) return { type: "error", code: "config", message: expansion.message };
    for (const note of expansion.notes) this.emit({ type: "notice", message: note });
    // What `@` showed the model counts as read, as read_file's pages do: it may edit those lines.
    for (const file of expansion.attached)
      await this.parts.tools.recordAttachment?.(file.name, file.bytes);
    return { type: "prompt", text: withContext(expansion.text), images: expansion.images };
  }

  /** Runs the SessionStart hooks; what they print goes to the model with the first prompt. */
  async startHooks(source: "startup" | "resume"): Promise<void> {
    this.startContext = (await this.parts.hooks?.sessionStart(source)) ?? null;
  }

  /** `!command` typed as the prompt: run, and put with its output into the conversation; no request. */
  private async runDirect(command: string, signal: AbortSignal): Promise<TerminalEvent> {
    const hooked = await this.parts.hooks?.userPromptSubmit(`!${command}`);
    if (hooked && "blocked" in hooked)
      return {
        type: "error",
        code: "config",
        message: `A UserPromptSubmit hook blocked this command, so it did not run: ${hooked.blocked}`,
      };
    const run = await this.runForPrompt(command, signal);
    if (signal.aborted) return { type: "aborted", reason: "interrupted by the user" };
    if (!run.ok && !run.ran)
      return {
        type: "error",
        code: "config",
        message: `\`${command}\` was not run: ${run.reason}. Nothing was added to the conversation.`,
      };
    const output = run.ok ? run.output : run.reason;
    const message = directCommandMessage(command, output);
    this.messages.push(message);
    this.emit({ type: "message_added", message });
    this.parts.journal.sync();
    return { type: "done", finalText: output, turns: 0 };
  }

  /** A command line of a custom command: a `bash` call of the prompt's first turn, asked and shown as one. */
  private async runForPrompt(command: string, signal: AbortSignal): Promise<CommandRun> {
    const tools = this.journaledTools();
    const call = {
      id: `prompt-command-${++this.promptCommands}`,
      name: "bash",
      args: { command },
      turn: 1,
    };
    this.emit({ type: "tool_call_started", callId: call.id, name: call.name, args: call.args });
    const permission = await tools.permission(call);
    let refusal: string | null = permission.type === "deny" ? permission.reason : null;
    if (permission.type === "ask") {
      this.emit({
        type: "permission_requested",
        callId: call.id,
        name: call.name,
        summary: permission.summary,
      });
      const answer = await this.approve(call.id, signal);
      if (answer.type === "deny")
        refusal = answer.reason ? `denied: ${answer.reason}` : "the user denied it";
      else if (answer.type === "allow_session" || answer.type === "allow_project")
        tools.rememberApproval(call);
      if (answer.type === "allow_project" && tools.saveApproval)
        this.emit({ type: "notice", message: await tools.saveApproval(call) });
    }
    if (refusal !== null) {
      this.emit({
        type: "tool_call_refused",
        callId: call.id,
        name: call.name,
        cause: "denied",
        reason: refusal,
        bytesReceived: 0,
      });
      return { ok: false, reason: refusal };
    }
    const outcome = await tools.execute(call, signal);
    this.emit({
      type: "tool_result",
      callId: call.id,
      name: call.name,
      isError: outcome.isError,
      code: outcome.code ?? null,
      content: outcome.content,
      details: outcome.details ?? null,
    });
    return outcome.isError
      ? { ok: false, reason: outcome.content, ran: outcome.details?.type === "bash" }
      : { ok: true, output: outcome.content };
  }

  /** Tools whose reads are journaled, so read-before-write survives resume. */
  private journaledTools(): ToolHost {
    const tools = this.parts.tools;
    return {
      specs: () => tools.specs(),
      readOnly: (name) => tools.readOnly?.(name) ?? false,
      permission: (call) => tools.permission(call),
      rememberApproval: (call) => tools.rememberApproval(call),
      ...(tools.saveApproval ? { saveApproval: tools.saveApproval } : {}),
      execute: async (call, signal) => {
        const turn = this.turnOffset + call.turn;
        this.highestTurn = Math.max(this.highestTurn, turn);
        const outcome = await tools.execute({ ...call, turn }, signal);
        for (const record of outcome.ledger ?? []) this.parts.journal.ledger(record);
        const change = describeChange(outcome.details);
        if (change) this.parts.journal.checkpoint(turn, change);
        return outcome;
      },
      unfinishedWrites: () => tools.unfinishedWrites?.() ?? [],
      discardUnfinished: async () => (await tools.discardUnfinished?.()) ?? [],
      notices: () => tools.notices?.() ?? [],
      endOfPrompt: async () => (await tools.endOfPrompt?.()) ?? [],
    };
  }
}

/**
 * Listeners (the chat, `--json`, an editor) get a message's images without their bytes: megabytes of
 * base64 in every line of `--json` would help no one; the journal and the requests have them.
 */
function withoutImageBytes(event: AgentEvent): AgentEvent {
  if (event.type !== "message_added") return event;
  const { message } = event;
  if (message.type === "assistant" || !message.images?.length) return event;
  return {
    ...event,
    message: { ...message, images: message.images.map((image) => ({ ...image, data: "" })) },
  };
}

/** What a tool changed, for the journal's checkpoint records; null for reads and failures. */
function describeChange(details: ToolOutcome["details"]): string | null {
  switch (details?.type) {
    case "write":
      return `write_file ${details.path} (${details.created ? "created" : `replaced ${details.previousBytes} bytes`}, now ${details.bytes} bytes)`;
    case "edit":
      return `edit_file ${details.path} (${details.replacements} replacement(s), now ${details.bytes} bytes)`;
    case "bash":
      return `bash ${details.command}`;
    default:
      return null;
  }
}
