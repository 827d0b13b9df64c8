import { StopRequest } from "../../agent/stop-words.ts";
import type {
  AgentEvent,
  CompactResult,
  Message,
  ModelSwitchResult,
  NoteKind,
  PermissionAnswer,
  PermissionMode,
  TerminalEvent,
  ToolHost,
  UndoResult,
} from "../../protocol/index.ts";
import type { RunChanges } from "../../tools/index.ts";
import type { EffortOrOff, Price } from "../config/index.ts";
import { type PromptMark, type RewindPoint, rewindPoints } from "../history/index.ts";
import type { AgentSession, PromptExtra, SessionInfo, SessionSummary } from "./agent-session.ts";
import { completePath, type PendingNote } from "./input/index.ts";
import { childTools, journaledTools } from "./journal-records.ts";
import type { ModelChoices } from "./model-switch.ts";
import { PermissionAnswers } from "./permission-answers.ts";
import type { PromptHost } from "./prompt-input.ts";
import { FailedRuns, runPrompt } from "./prompt-run.ts";
import { SessionEvents } from "./session-events.ts";
import type { SessionParts } from "./session-parts.ts";
import { SummaryKeeper } from "./summary/index.ts";

/** The `AgentSession` a UI drives: runs the loop, fans its events out, journals, answers permissions. */
export class NexSession implements AgentSession {
  readonly info: SessionInfo;
  private readonly parts: SessionParts;
  private readonly answers = new PermissionAnswers();
  private readonly events: SessionEvents;
  private controller: AbortController | null = null;
  /** Why every prompt stops at its start (a spent time budget), or null. */
  private endedBy: string | null = null;
  /** The prompt running now, so `close` can wait for it to end before closing the journal. */
  private running: Promise<TerminalEvent> | null = null;
  private turnOffset = 0;
  private highestTurn = 0;
  private promptCommands = 0;
  private startContext: { note: string | null; hooks: string | null } = { note: null, hooks: null };
  private requestCounter = 0;
  private readonly failures = new FailedRuns();
  private messages: Message[];
  /** The prompts of this process, for `/rewind` (see rewind.ts). */
  private readonly promptMarks: PromptMark[] = [];
  private readonly summary = new SummaryKeeper(() => ({
    journalPath: this.info.journalPath,
    stream: this.parts.stream,
    model: this.info.model,
    emit: (event) => this.emit(event),
    nextRequestId: () => this.nextRequestId(),
    redact: (text) => this.redact(text),
  }));

  constructor(parts: SessionParts) {
    this.events = new SessionEvents(parts, this.answers, () => this.messages.length);
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
    return this.events.text(text);
  }

  history(): readonly Message[] {
    return this.messages;
  }

  subscribe(listener: (event: AgentEvent) => void): () => void {
    return this.events.subscribe(listener);
  }

  /** Sends an event to the journal and to every listener, redacted (session-events.ts). */
  emit(raw: AgentEvent): void {
    this.events.emit(raw);
  }

  async submit(prompt: string, more: PromptExtra = {}): Promise<TerminalEvent> {
    if (this.controller) {
      return this.end({
        type: "error",
        code: "config",
        message: "A task is already running in this session; wait for it or interrupt it first.",
      });
    }
    if (this.failures.tripped) {
      return this.end({
        type: "error",
        code: "network",
        message: `${this.failures.count} tasks in a row failed, so this session sends no more requests. Read the errors above (the endpoint is ${this.info.host}), then continue with \`nex resume ${this.info.sessionId}\`.`,
      });
    }
    const controller = new AbortController();
    this.controller = controller;
    if (this.endedBy !== null) controller.abort(new StopRequest(this.endedBy));
    const run = this.run(prompt, controller.signal, more);
    this.running = run;
    try {
      return await run;
    } finally {
      this.running = null;
      this.controller = null;
    }
  }

  /** One prompt to its end (prompt-run.ts). */
  private run(prompt: string, signal: AbortSignal, more: PromptExtra): Promise<TerminalEvent> {
    // The tools number turns across the whole session, so each prompt's turns get checkpoints of their own.
    this.turnOffset = this.highestTurn;
    return runPrompt(
      {
        parts: this.parts,
        info: this.info,
        events: this.events,
        failures: this.failures,
        marks: this.promptMarks,
        messages: () => this.messages,
        tools: () => this.journaledTools(),
        promptHost: () => this.promptHost(),
        approve: (callId, signal) => this.approve(callId, signal),
        nextRequestId: () => this.nextRequestId(),
        answered: () => this.summary.answeredPrompt(this.messages),
      },
      prompt,
      signal,
      more,
    );
  }

  /** `why`: who stopped it, when not the user (a time budget, a signal); the run's end says so. */
  interrupt(why?: string): void {
    this.controller?.abort(why === undefined ? undefined : new StopRequest(why));
    this.parts.hooks?.interrupt();
    this.answers.denyAll();
  }

  endRuns(why: string): void {
    this.endedBy = why;
    this.interrupt(why);
  }

  answerPermission(callId: string, answer: PermissionAnswer): void {
    this.answers.answer(callId, answer);
  }

  setPermissionMode(mode: PermissionMode): void {
    this.info.permissionMode = mode;
    this.parts.tools.setMode(mode);
    this.emit({ type: "notice", message: `Permission mode is now ${mode}.` });
  }

  async changeMark(): Promise<number | null> {
    return (await this.parts.tools.changeMark?.()) ?? null;
  }

  async changesSince(mark: number): Promise<RunChanges | null> {
    const changes = await this.parts.tools.changesSince?.(mark);
    if (!changes) return null;
    return {
      paths: changes.paths.map((path) => this.redact(path)),
      unmeasured: changes.unmeasured.map((command) => this.redact(command)),
    };
  }

  async undoPreview(): Promise<string> {
    const steps = await this.parts.tools.undoSteps?.();
    if (steps === undefined) return "This session cannot list undo steps.";
    const { describeUndoList } = await import("../history/index.ts");
    return this.redact(await describeUndoList(this.promptMarks, this.messages, steps));
  }

  async contextReport(): Promise<string> {
    const { contextReport } = await import("../context/index.ts");
    const { system, budget } = this.parts;
    return this.redact(
      await contextReport({
        system,
        tools: this.parts.tools.specs(),
        messages: this.messages,
        window: budget.window(),
        total: budget.estimatePrompt(system, this.messages),
      }),
    );
  }

  async diff(): Promise<string> {
    const text = await this.parts.tools.sessionDiff?.();
    return text === undefined
      ? "This session keeps no undo snapshots to diff against."
      : this.redact(text);
  }

  async undo(turns: number, why: "undo" | "rewind" = "undo"): Promise<UndoResult> {
    const result = await this.parts.tools.undo(turns);
    // A rewind cuts the conversation instead: no note of it goes to the model.
    if (why === "rewind") return result;
    const note: Message = {
      type: "user",
      text: `[nex] The user undid the file changes of the last ${turns} prompt(s): ${result.report}`,
    };
    this.append(note);
    return result;
  }

  async compact(): Promise<CompactResult> {
    if (this.controller)
      return { kind: "busy", reason: "A task is running; compact when it has ended." };
    const controller = new AbortController();
    this.controller = controller;
    if (this.endedBy !== null) controller.abort(new StopRequest(this.endedBy));
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

  async modelChoices(): Promise<ModelChoices | null> {
    const choices = await this.parts.modelChoices?.();
    return choices ? { ...choices, source: this.redact(choices.source) } : null;
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
    const { forkJournal } = await import("../history/index.ts");
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
    if (this.controller)
      return {
        rewound: false,
        line: "A task is running; rewind when it has ended (Esc interrupts it).",
        prompt: null,
      };
    return (await import("./rewind-conversation.ts")).rewindConversation(
      {
        parts: this.parts,
        messages: () => this.messages,
        marks: this.promptMarks,
        points: () => this.rewindPoints(),
        undo: (steps) => this.undo(steps, "rewind"),
      },
      number,
    );
  }

  listSessions(scope?: "workspace" | "all"): Promise<SessionSummary[]> {
    return this.parts.listSessions(scope);
  }

  async close(): Promise<void> {
    this.interrupt();
    await this.running;
    await this.summary.stop();
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
    const text = await (await import("./jobs-command.ts")).runJobsCommand(jobs, args);
    return this.events.text(text);
  }

  /** Stops every background job now (the chat is ending): one line per job it stopped. */
  async stopBackgroundJobs(): Promise<string[]> {
    const lines = (await this.parts.tools.stopJobs?.()) ?? [];
    return lines.map((line) => this.events.text(line));
  }

  /** `/mcp`'s text: each MCP server's state, tools and last error. */
  mcpStatus(): string {
    const text = this.parts.mcpStatus?.();
    if (text !== undefined) return this.events.text(text);
    return "No MCP servers configured. Add one with `nex mcp add NAME -- COMMAND ARGS...`, `mcpServers` in the config, or --mcp-config FILE.";
  }

  private end(event: TerminalEvent): TerminalEvent {
    return this.events.end(event);
  }

  /** The tools as a child agent sees them (see journal-records.ts). */
  childTools(agent: string, turn: number): ToolHost {
    return childTools(this.parts.tools, this.parts.journal, agent, turn);
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
    return this.answers.wait(this.parts.approvals, callId, signal);
  }

  /** Adds a message to the conversation, tells the listeners and makes it durable. */
  private append(message: Message): void {
    this.messages.push(message);
    this.emit({ type: "message_added", message });
    this.parts.journal.sync();
  }

  private promptHost(): PromptHost {
    return {
      parts: this.parts,
      tools: () => this.journaledTools(),
      emit: (event) => this.emit(event),
      approve: (callId, signal) => this.approve(callId, signal),
      redact: (text) => this.redact(text),
      takeStartContext: () => {
        const context = this.startContext;
        this.startContext = { note: null, hooks: null };
        return context;
      },
      nextCommandId: () => ++this.promptCommands,
      append: (message) => this.append(message),
    };
  }

  /** Runs the SessionStart hooks; what they print goes to the model with the first prompt. */
  async startHooks(source: "startup" | "resume", note: string | null = null): Promise<void> {
    const hooked = (await this.parts.hooks?.sessionStart(source)) ?? null;
    this.startContext = { note, hooks: hooked };
  }

  /** Tools whose reads are journaled (see journal-records.ts), numbering turns across the session. */
  private journaledTools(): ToolHost {
    return journaledTools(this.parts.tools, this.parts.journal, (promptTurn) => {
      const turn = this.turnOffset + promptTurn;
      this.highestTurn = Math.max(this.highestTurn, turn);
      return turn;
    });
  }
}
