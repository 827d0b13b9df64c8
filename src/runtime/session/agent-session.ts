import type {
  AgentEvent,
  CompactResult,
  ImagePart,
  Message,
  ModelSwitchResult,
  NoteKind,
  PermissionAnswer,
  PermissionMode,
  SandboxStatus,
  TerminalEvent,
  UndoResult,
  WindowSource,
} from "../../protocol/index.ts";
import type { RunChanges } from "../../tools/index.ts";
import type { Price } from "../config/index.ts";
import type { RewindPoint, SessionSummary } from "../history/index.ts";
import type { PendingNote } from "./input/index.ts";
import type { ModelChoices } from "./model-switch.ts";

export type { RunChanges };

/** What goes with a prompt besides its text (a chat message's attachments). */
export interface PromptExtra {
  text?: string;
  images?: ImagePart[];
}

/** What a UI shows about the session it drives. */
export interface SessionInfo {
  sessionId: string;
  provider: string;
  model: string;
  host: string;
  workspace: string;
  contextWindow: number;
  windowSource: WindowSource;
  permissionMode: PermissionMode;
  journalPath: string;
  sandbox: SandboxStatus;
  /** grep's and glob's backend and whose rules pick the files, for `/status`. */
  search?: string;
  /** The custom commands and skills found for this workspace, for help and completion. */
  extensions?: {
    commands: { name: string; description: string | null; argumentHint: string | null }[];
    skills: { name: string; description: string }[];
  };
  /** When the chat notifies a terminal in the background (the config's `notifications`). */
  notifications?: { mode: "auto" | "bell" | "off"; afterSeconds: number };
}

/**
 * The one object a UI (headless or TUI) drives. UIs never call a provider or a tool directly:
 * they submit prompts, answer permission requests, interrupt, and render the events they receive.
 */
export interface AgentSession {
  readonly info: SessionInfo;
  /** The conversation as the model will see it next (after a resume: what was kept). */
  history(): readonly Message[];
  /** Receives every event of the session; returns an unsubscribe function. */
  subscribe(listener: (event: AgentEvent) => void): () => void;
  /**
   * Runs one user prompt to its terminal event. Rejects never: failures are `error` events. `extra`
   * is what a chat message's attachments give: text added after the prompt's expansion (never
   * expanded itself: an attached file's `@name` attaches nothing) and images after those it names.
   */
  submit(prompt: string, extra?: PromptExtra): Promise<TerminalEvent>;
  /** Cancels the request in flight and any retry wait at once; the pending `submit` ends `aborted`. */
  interrupt(why?: string): void;
  /**
   * A spent time budget: interrupts the running prompt as `interrupt(why)` does, and every later
   * `submit` ends `aborted` with `why` before anything is sent.
   */
  endRuns?(why: string): void;
  /** Answers a `permission_requested` event. */
  answerPermission(callId: string, answer: PermissionAnswer): void;
  setPermissionMode(mode: PermissionMode): void;
  /** Restores the workspace to before the last `turns` prompts that changed files: what was restored, left alone, or could not be. */
  undo(turns: number): Promise<UndoResult>;
  /** Lists what each undo step would restore, newest first, changing nothing. */
  undoPreview(): Promise<string>;
  /** Where a run's file changes begin (null: this session keeps no checkpoints). */
  changeMark?(): Promise<number | null>;
  /** The paths whose bytes or mode differ from before `mark` (null: not known). */
  changesSince?(mark: number): Promise<RunChanges | null>;
  /** `/context`: what fills the window (system prompt, tools, messages, results), in tokens and shares. */
  contextReport?(): Promise<string>;
  /** `/diff`: what this session changed, per file, against undo's snapshots (secrets replaced). */
  diff?(): Promise<string>;
  /** Compacts the conversation now: what changed, or why nothing did (`describeCompact` words it). */
  compact(): Promise<CompactResult>;
  /** Switches the model for the next requests: the new window, or why it stays (`describeModelSwitch`). */
  setModel(model: string): Promise<ModelSwitchResult>;
  /** What the endpoint serves and which model is in use, as one line to show. */
  listModels(): Promise<string>;
  /** `/model`'s picker: this endpoint's models and the config's other endpoints (null: none known). */
  modelChoices?(): Promise<ModelChoices | null>;
  /**
   * Sets how hard the model thinks for the next requests ("off": nothing sent), or with null only
   * says what is sent now; returns the line to show.
   */
  setReasoningEffort(effort: "low" | "medium" | "high" | "off" | null): string;
  /** `/mcp`: each MCP server's state, tools and last error. */
  mcpStatus?(): string;
  /** Starts a fresh conversation in the same workspace (a resume starts there too); says whether it did, and the line to show. */
  clear(): Promise<{ cleared: boolean; line: string }>;
  /** The saved sessions of this workspace, newest first; with "all", every project's. */
  listSessions(scope?: "workspace" | "all"): Promise<SessionSummary[]>;
  /**
   * A message typed while a prompt runs: it reaches the model at the next turn boundary (a
   * `note_delivered` event says when), or says why it cannot wait.
   */
  queueNote?(text: string, kind: NoteKind): PendingNote | { refused: string };
  /** Takes back a note not delivered yet (to edit or drop it): false when it was. */
  unqueueNote?(id: number): boolean;
  /** The notes no turn boundary took (the prompt ended first), now removed: the next prompt's to send. */
  takePendingNotes?(): PendingNote[];
  /** Workspace paths completing `partial` for `@` (folders end in `/`). */
  completePath?(partial: string): string[];
  /** `/bg`, `/bg ID`, `/bg stop ID`: the session's background jobs, in words to show. */
  jobsCommand?(args: string): Promise<string>;
  /** Stops every background job (the chat is ending): one line per job stopped. */
  stopBackgroundJobs?(): Promise<string[]>;
  /** `/rewind`: the prompts of this chat still in the conversation, with what rewinding to each restores. */
  rewindPoints?(): Promise<RewindPoint[]>;
  /**
   * Restores the files (undo's steps) and cuts the conversation to before prompt `number` of
   * `rewindPoints`; `prompt` is its text, for the input box. Says why not when it cannot.
   */
  rewind?(number: number): Promise<{ rewound: boolean; line: string; prompt: string | null }>;
  /** The model's price (USD per million tokens), or null when unknown: for the cost shown. */
  priceOf?(model: string): Price | null;
  /** `/fork`: copies this session under a new id (the original stays resumable); says why not when it cannot. */
  fork?(): Promise<{ sessionId: string | null; line: string }>;
  /** Flushes the journal and releases resources. */
  close(): Promise<void>;
}

export type { SessionSummary };
