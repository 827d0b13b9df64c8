import type { Compactor } from "../../agent/loop.ts";
import type {
  AgentEvent,
  CompactResult,
  Message,
  ModelSwitchResult,
  PermissionMode,
  ReadRecord,
  StreamFn,
  ToolHost,
  UndoResult,
} from "../../protocol/index.ts";
import type { SecretScrubber } from "../../session/index.ts";
import type { RunChanges } from "../../tools/index.ts";
import type { EffortOrOff, Price } from "../config/index.ts";
import type { SessionBudget } from "../context/index.ts";
import type { CommandRun, Expansion } from "../extensions/index.ts";
import type { UndoStepInfo } from "../history/index.ts";
import type { Hooks } from "../hooks/index.ts";
import type { SessionInfo, SessionSummary } from "./agent-session.ts";
import type { UserNotes } from "./input/index.ts";
import type { ModelChoices } from "./model-switch.ts";

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
  /** Where a run's changes begin; `changesSince` says what differs from then. */
  changeMark?(): Promise<number>;
  changesSince?(mark: number): Promise<RunChanges>;
  /** `/diff`: what the session changed, per file, as a diff against undo's snapshots. */
  sessionDiff?(): Promise<string>;
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
  listSessions: (scope?: "workspace" | "all") => Promise<SessionSummary[]>;
  /** Another model for the next requests: its client (null when the switch failed) and what happened. */
  /** `/model`'s picker: the models to choose from (see model-switch.ts). */
  modelChoices?: () => Promise<ModelChoices>;
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
