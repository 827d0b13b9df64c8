import type { ToolErrorCode } from "./errors.ts";
import type { ImagePart, ToolSpec } from "./messages.ts";

/** What the session knows it has read of a file: the basis of read-before-write. */
export interface ReadRecord {
  /** Absolute, symlink-resolved path. */
  path: string;
  /** sha256 of the bytes read, hex. */
  hash: string;
  mtimeMs: number;
  size: number;
  /** True when the whole file was read (or written by this session). */
  complete: boolean;
}

/** Structured details of a tool result, for a UI; the model sees `content` only. */
export type ToolDetails =
  | {
      type: "write";
      path: string;
      created: boolean;
      bytes: number;
      lines: number;
      hash: string;
      previousBytes: number;
      diff: string;
    }
  | { type: "part_staged"; path: string; part: number; parts: number; bytes: number }
  | {
      type: "edit";
      path: string;
      bytes: number;
      lines: number;
      hash: string;
      replacements: number;
      diff: string;
    }
  | { type: "read"; path: string; lines: number; totalLines: number; complete: boolean }
  | {
      type: "bash";
      command: string;
      exitCode: number | null;
      signal: string | null;
      timedOut: boolean;
      tail: string;
    }
  | { type: "list"; count: number; truncated: boolean }
  /** A web call: the page fetched (final URL, title) or the search's query, and the text's size. */
  | { type: "web"; url: string | null; query: string | null; title: string | null; bytes: number }
  | { type: "todo"; items: TodoItem[] };

/** One entry of the model's checklist (`todo_write`). */
export interface TodoItem {
  content: string;
  status: "pending" | "in_progress" | "completed";
}

/** The result of one tool call. Failure is a result, never an exception. */
export interface ToolOutcome {
  isError: boolean;
  /** What the model reads. */
  content: string;
  /** Present when `isError`: who must act and how. */
  code?: ToolErrorCode;
  details?: ToolDetails;
  /** Reads (and own writes) to record in the session's read ledger and journal. */
  ledger?: ReadRecord[];
  /** Images for the model (`read_file` on an image); never put in events. */
  images?: ImagePart[];
  /** The call named no tool the host has (`content` lists the tools). */
  unknownTool?: true;
}

/** How a call stands with the permission rules before it runs. */
export type PermissionCheck =
  | { type: "allow" }
  | {
      type: "ask";
      summary: string;
      /** What the call would change (a file tool's diff), shown before the user answers. */
      preview?: string;
      /** What "allow for this session" would approve, in words. */
      scope?: string;
      /** Why this call must ask where others like it would not; a refusal tells the model. */
      warning?: string;
      /** Why the command would run outside the sandbox (none can confine it here). */
      unconfined?: string;
    }
  /**
   * `outsidePlan`: refused only because the session is in plan mode (the model may not change
   * things); the verdict the call would get in ask mode.
   */
  | { type: "deny"; reason: string; outsidePlan?: PermissionCheck };

/** The user's answer to a permission request. */
export type PermissionAnswer =
  | { type: "allow_once" }
  | { type: "allow_session" }
  /** Allowed, and a precise rule saved so this project's later sessions do not ask (never a hazard). */
  | { type: "allow_project" }
  /** `unasked`: nobody was asked (headless without --yes); nex's policy refused it, not a person. */
  | { type: "deny"; reason?: string; unasked?: boolean };

/** A tool call the loop may run: arguments already received whole. */
export interface ToolInvocation {
  id: string;
  name: string;
  args: Record<string, unknown>;
  /** The loop's turn number: the tools snapshot the workspace before a turn's first mutation. */
  turn: number;
  /**
   * A child agent's id: its reads go to a ledger of its own, so neither it nor the parent writes a
   * file on the strength of what only the other read.
   */
  agent?: string;
}

/** The tools as the loop sees them. The loop knows nothing of files or processes. */
export interface ToolHost {
  specs(): ToolSpec[];
  /** Checks the permission rules; `allow_session` answers are remembered by the host. */
  permission(call: ToolInvocation): Promise<PermissionCheck>;
  /** Records a session-wide approval the user gave for a call like this one. */
  rememberApproval(call: ToolInvocation): void;
  /** Saves a rule for an `allow_project` answer; resolves with the line to show (where, or why not). */
  saveApproval?(call: ToolInvocation): Promise<string>;
  /** Validates and runs. Never throws: failures come back as error outcomes. */
  execute(call: ToolInvocation, signal: AbortSignal): Promise<ToolOutcome>;
  /** True for tools that only look (read_file, grep, ...): their result changes only when something else ran. */
  readOnly?(name: string): boolean;
  /**
   * True for calls that may run beside one another in a turn: they change nothing nex keeps track
   * of (reads, web fetches, an MCP tool its server calls read-only). It grants nothing else: what a
   * read-only sub-agent may call is `readOnly`'s to say. Absent: `readOnly` decides.
   */
  parallel?(name: string): boolean;
  /** Writes in parts still missing parts (nothing of them is on disk), e.g. "big.txt (1 of 2 parts staged)". */
  unfinishedWrites?(): string[];
  /** Removes the staging of every unfinished write in parts; returns what it removed, described as above. */
  discardUnfinished?(): Promise<string[]>;
  /** What the model must hear at the next turn boundary (a background job ended), once each. */
  notices?(): string[];
  /** A prompt ended: what ends with it (background jobs, unless they outlive prompts), as notices. */
  endOfPrompt?(): Promise<string[]>;
  /**
   * The workspace files a file name the model used may mean (a tool it invented, named after a
   * file): the file at that path, else files of that base name as glob lists them (ignored files
   * and nex's own data left out, nothing outside the workspace), at most `limit`, as results show
   * paths. Absent: the host cannot look, and nothing may be said about what exists.
   */
  filesNamed?(name: string, limit: number, signal: AbortSignal): Promise<string[]>;
}

/** When mutating tools and `bash` need the user's approval. */
/** `plan`: the model may read and propose, never change. */
export type PermissionMode = "plan" | "ask" | "auto_edit" | "approve_all";
