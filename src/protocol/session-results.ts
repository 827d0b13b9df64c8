// What the session's operations answer, as data: a UI (the chat, the text renderer, `nex compact`,
// an editor client) words it. `session-result-words.ts` holds nex's own wording.

/** What came back verbatim after a compaction, so the model keeps its bearings. */
export interface CompactionRestored {
  /** The session's first prompt, when it was among the summarised messages. */
  task: boolean;
  /** The todo list, when it was among the summarised messages. */
  todos: boolean;
  /** Recently touched files re-read whole (workspace-relative). */
  filesReread: string[];
  /** Recently touched files only named (too large to re-read, or unreadable now). */
  filesNamed: string[];
}

/** The answer of `compact`. */
export type CompactResult =
  | {
      kind: "compacted";
      messagesBefore: number;
      messagesAfter: number;
      /** Messages replaced by the summary. */
      summarised: number;
      tokensBefore: number;
      tokensAfter: number;
      restored: CompactionRestored;
    }
  /** Nothing was summarised; the conversation is unchanged. */
  | { kind: "not_needed"; reason: string }
  /** The summary request failed or was unusable; the conversation is unchanged. */
  | { kind: "failed"; reason: string }
  /** A task is running; nothing was done. */
  | { kind: "busy"; reason: string };

/** The answer of `setModel`. */
export type ModelSwitchResult =
  | {
      kind: "switched";
      previousModel: string;
      model: string;
      contextWindow: number;
      /** Where the window came from, in words (config, endpoint, built-in table, default). */
      windowSource: string;
      maxOutput: number;
    }
  | { kind: "failed"; model: string; reason: string }
  /** Not a model this session's endpoint serves (or another endpoint's): `reason` says what to do. */
  | { kind: "refused"; model: string; reason: string };

/** What undo did to one path. */
export interface UndoRestoredPath {
  path: string;
  action: "modified" | "deleted again" | "re-created" | "mode restored";
}

/** The answer of `undo`. */
export interface UndoResult {
  /** `undone`: every change restored; `partial`: some could not be; `nothing`: no step to undo. */
  kind: "undone" | "partial" | "nothing";
  /** Prompts undone, oldest first (empty for older logs). */
  prompts: number[];
  /** Turns undone, oldest first. */
  turns: number[];
  restored: UndoRestoredPath[];
  /** Paths left alone because undo is not sure they are the session's, and why. */
  leftAlone: Array<{ path: string; reason: string }>;
  /** What could not be restored and why; `path` is null for a general limit. */
  failed: Array<{ path: string | null; reason: string }>;
  /** Limits worth knowing that need no action. */
  notes: string[];
  /** nex's full account, sentence by sentence, for a UI that shows text. */
  report: string;
}
