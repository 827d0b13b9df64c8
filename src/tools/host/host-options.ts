import type { PermissionMode, ReadRecord, ToolHost, ToolInvocation } from "../../protocol/index.ts";
import type { AfterRename } from "../files/index.ts";
import type { CommandRules } from "../permissions/index.ts";
import type { CommandSandbox, SandboxSettings } from "../sandbox/index.ts";
import type { Tool, ToolContext } from "../tool.ts";
import type { RunChanges, SnapshotLimits, UndoPreviewStep, UndoReport } from "../undo/index.ts";

/** How to build the tools for one workspace and session. */
export interface ToolHostOptions {
  /** Absolute workspace root. */
  workspace: string;
  mode: PermissionMode;
  rules?: CommandRules;
  /** Paths outside the workspace the user allowed. */
  allowedPaths?: string[];
  /** nex's own data directories (journals, checkpoints); tools keep out when they lie in the workspace. */
  privatePaths?: string[];
  /** The read ledger restored from the journal on resume. */
  ledger?: ReadRecord[];
  /** Private directory for snapshots and before-images, outside the workspace (e.g. `<dataDir>/checkpoints/<session>`). */
  checkpointDir: string;
  /** Default `bash` timeout (120 s). */
  bashTimeoutMs?: number;
  /** Most a call may ask for with `timeout_seconds` (600 s). */
  maxBashTimeoutMs?: number;
  /** Wait between SIGTERM and SIGKILL (2 s). */
  killGraceMs?: number;
  /** Most bytes of a result (32 KiB); `resultCap` wins when given. */
  outputCap?: number;
  /** Most bytes of a result now (it follows the model's window, which /model can change). */
  resultCap?: () => number;
  /** Where results larger than that are stored whole (default: beside the checkpoints). */
  resultsDir?: string;
  /** False forces the JavaScript search fallback even when `rg` is on PATH. */
  useRipgrep?: boolean;
  /** Environment for commands, git and ripgrep (default: this process's). */
  env?: Record<string, string | undefined>;
  snapshotLimits?: Partial<SnapshotLimits>;
  /** How commands are confined (default: off, for hosts built without a configuration, as in tests). */
  sandbox?: SandboxSettings;
  /** No person can answer a question (headless): what would ask is refused, with the reason. */
  unattended?: boolean;
  /** Most background jobs running at once (4). */
  maxJobs?: number;
  /** Background jobs keep running after the prompt that started them (the chat); else they end with it. */
  jobsOutlivePrompts?: boolean;
  /** Tools beyond the built-in ones (JSON-Schema tools of a server, say), under the same contract. */
  extraTools?: Tool[];
  /** The editor's unsaved buffers (ACP): reads show them, changes to such a file are refused. */
  editor?: ToolContext["editor"];
  /** Tools that come and go during the session (a server's list changed); same array until they change. */
  dynamicTools?: () => readonly Tool[];
  /** The steps after a file tool's rename (default: fsync, read the file); a test injects a failure here. */
  afterRename?: Partial<AfterRename>;
  /** Replaces nex's secrets in text the tools store (the command text in the checkpoint log). */
  redact?: (text: string) => string;
  /** Whether the session's model takes images now (`read_file` returns an image, or describes it). */
  acceptsImages?: () => boolean;
  /** A step of a long call, for the UI (research's progress). */
  onProgress?: (callId: string, name: string, message: string) => void;
  /** A running command's output so far, for the UI (throttled by the tool). */
  onOutput?: (callId: string, name: string, tail: string, lines: number, bytes: number) => void;
}

/** The tools as the loop sees them, plus what the runtime needs around them. */
export interface WorkspaceToolHost extends ToolHost {
  /** Every read record of the session, for the journal. */
  ledger(): ReadRecord[];
  setMode(mode: PermissionMode): void;
  /** Restores the workspace to before the last `steps` user prompts that changed something. */
  undo(steps: number): Promise<UndoReport>;
  /** What each step of undo would restore, newest first, as text. */
  undoPreview(): Promise<string>;
  /** The precise allow rules a "this project" approval would save, or why none (see permissions.ts). */
  savableRules(call: ToolInvocation): Promise<{ rules: string[] } | { refused: string }>;
  /** Undo's steps, newest first, changing nothing (`/rewind` places them by time). */
  undoSteps(): Promise<UndoPreviewStep[]>;
  /** Where a run's changes begin: pass it to `changesSince` when the run ends. */
  changeMark(): Promise<number>;
  /** The paths whose bytes or mode differ from before `mark`, from the checkpoints (not a count of calls). */
  changesSince(mark: number): Promise<RunChanges>;
  /** `/diff`: what the session changed, per file, against undo's snapshots, as text. */
  sessionDiff(): Promise<string>;
  /** A new user prompt starts: undo takes whole prompts as its steps. */
  beginPrompt(): void;
  /** The conversation starts afresh (`/clear`): the model has read no file, so the ledger empties. */
  forgetConversation(): Promise<void>;
  /** The sandbox that confines commands, and whether it works here. */
  sandbox: CommandSandbox;
  /** Stops every background job; says which it stopped. */
  stopJobs(): Promise<string[]>;
  /**
   * Records that the model was shown the first bytes of a file (`@path`): its complete lines count as
   * read, as a read_file page does. False when the file is not what was shown (it changed since).
   */
  recordAttachment(name: string, shown: Buffer): Promise<boolean>;
  /** What the jobs tool says, for a person (`/bg`): the list, a job's last lines, or a stop. */
  jobsForUser(action: "list" | "output" | "stop", id?: number): Promise<string>;
  /** The tools marked rarely used, loaded on demand on small windows. */
  deferredTools(): string[];
  filesNamed(name: string, limit: number, signal: AbortSignal): Promise<string[]>;
}
