import { appendFileSync } from "node:fs";
import type {
  AgentEvent,
  CompactResult,
  Message,
  ModelSwitchResult,
  PermissionAnswer,
  PermissionMode,
  TerminalEvent,
  UndoResult,
} from "../../src/protocol/index.ts";
import type {
  AgentSession,
  SessionInfo,
  SessionSummary,
} from "../../src/runtime/session/agent-session.ts";

/** What a scripted turn can do: emit events with real timing, and wait for the user's answers. */
export interface ScriptContext {
  prompt: string;
  emit(event: AgentEvent): void;
  /** Waits, or throws at once when the user interrupts. */
  sleep(ms: number): Promise<void>;
  /** Emits `permission_requested` and waits for the answer. */
  ask(callId: string, name: string, summary: string): Promise<PermissionAnswer>;
}

/** One turn's script: returns the terminal event (the session emits it). */
export type Script = (ctx: ScriptContext) => Promise<TerminalEvent>;

class Interrupted extends Error {}

/**
 * An AgentSession that plays recorded event sequences, for driving the TUI before (and besides) the real
 * runtime. Every call a UI makes is appended to `logPath` as a JSON line, so a test can check it.
 */
export class ScriptedSession implements AgentSession {
  readonly info: SessionInfo;
  private readonly listeners = new Set<(event: AgentEvent) => void>();
  private readonly script: Script;
  private readonly logPath: string | null;
  private controller: AbortController | null = null;
  private readonly waiting = new Map<string, (answer: PermissionAnswer) => void>();

  constructor(options: { script: Script; info?: Partial<SessionInfo>; logPath?: string }) {
    this.script = options.script;
    this.logPath = options.logPath ?? null;
    this.info = {
      sessionId: "s-test",
      provider: "openai",
      model: "m",
      host: "127.0.0.1:9",
      workspace: "/tmp/ws",
      contextWindow: 32_768,
      windowSource: "default",
      permissionMode: "ask",
      journalPath: "/tmp/ws/journal.jsonl",
      sandbox: {
        mode: "workspace-write",
        network: false,
        state: "active",
        line: "sandbox workspace-write (bwrap, no network)",
      },
      ...options.info,
    };
  }

  history(): readonly Message[] {
    return [];
  }

  private log(call: string, detail: unknown = null): void {
    if (this.logPath) appendFileSync(this.logPath, `${JSON.stringify({ call, detail })}\n`);
  }

  private emit(event: AgentEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  subscribe(listener: (event: AgentEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async submit(prompt: string): Promise<TerminalEvent> {
    this.log("submit", prompt);
    const controller = new AbortController();
    this.controller = controller;
    const signal = controller.signal;
    const ctx: ScriptContext = {
      prompt,
      emit: (event) => {
        if (!signal.aborted) this.emit(event);
      },
      sleep: (ms) =>
        new Promise((resolve, reject) => {
          if (signal.aborted) return reject(new Interrupted());
          const timer = setTimeout(resolve, ms);
          signal.addEventListener("abort", () => {
            clearTimeout(timer);
            reject(new Interrupted());
          });
        }),
      ask: (callId, name, summary) =>
        new Promise((resolve, reject) => {
          this.waiting.set(callId, resolve);
          signal.addEventListener("abort", () => reject(new Interrupted()));
          this.emit({ type: "permission_requested", callId, name, summary });
        }),
    };
    let end: TerminalEvent;
    try {
      end = await this.script(ctx);
    } catch (error) {
      if (!(error instanceof Interrupted)) throw error;
      end = { type: "aborted", reason: "interrupted by the user" };
    }
    this.controller = null;
    this.waiting.clear();
    this.emit(end);
    return end;
  }

  interrupt(): void {
    this.log("interrupt");
    this.controller?.abort();
  }

  answerPermission(callId: string, answer: PermissionAnswer): void {
    this.log("answerPermission", { callId, answer });
    this.waiting.get(callId)?.(answer);
    this.waiting.delete(callId);
  }

  setPermissionMode(mode: PermissionMode): void {
    this.log("setPermissionMode", mode);
    this.info.permissionMode = mode;
    this.emit({ type: "notice", message: `Permission mode is now ${mode}.` });
  }

  async undo(turns: number): Promise<UndoResult> {
    this.log("undo", turns);
    return {
      kind: "undone",
      prompts: [1],
      turns: [1],
      restored: [{ path: "hello.txt", action: "modified" }],
      leftAlone: [],
      failed: [],
      notes: [],
      report: `Restored 1 file to before the last ${turns} turn(s): hello.txt.`,
    };
  }

  async undoPreview(): Promise<string> {
    this.log("undoPreview");
    return "1. prompt 1: hello.txt";
  }

  async compact(): Promise<CompactResult> {
    this.log("compact");
    return { kind: "not_needed", reason: "the conversation is empty" };
  }

  async setModel(model: string): Promise<ModelSwitchResult> {
    this.log("setModel", model);
    const previousModel = this.info.model;
    this.info.model = model;
    return {
      kind: "switched",
      previousModel,
      model,
      contextWindow: 32768,
      windowSource: "default",
      maxOutput: 8192,
    };
  }

  async listModels(): Promise<string> {
    this.log("listModels", "");
    return `Using ${this.info.model}.`;
  }

  setReasoningEffort(effort: "low" | "medium" | "high" | "off" | null): string {
    this.log("setReasoningEffort", effort);
    return `Reasoning effort ${effort}.`;
  }

  async clear(): Promise<{ cleared: boolean; line: string }> {
    this.log("clear");
    return { cleared: true, line: "Started a fresh conversation." };
  }

  async listSessions(): Promise<SessionSummary[]> {
    this.log("listSessions");
    return [
      {
        sessionId: "20260101-abcdef",
        workspace: this.info.workspace,
        startedAt: "2026-01-01T10:00:00Z",
        lastMessage: "Done: hello.txt written.",
        firstPrompt: "write hello.txt",
        messages: 4,
        bytes: 1200,
        journalPath: "/tmp/j.jsonl",
      },
    ];
  }

  async close(): Promise<void> {
    this.log("close");
  }
}
