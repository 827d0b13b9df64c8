import type { CompactionRestored, Message } from "../../protocol/index.ts";
import { SUMMARY_PREFIX } from "../../session/index.ts";
import { latestTodos, readWorkspaceOwnFile, todoNote } from "../../tools/index.ts";

/** The note that brings the task and the recent files back after a compaction. */
export const RESTORE_NOTE = "[nex] Context restored after the compaction above.";
// Endpoints take consecutive user messages as one turn, so the user's next prompt arrives joined to
// this note: it says it is background, that the task may be done, and where it ends.
const RESTORE_LEAD =
  "This is background, not a new request. The task below is where the session began; it may already be done, or partly (the summary above says how far the work got): do not start it again. If a message from the user follows the end of this note, it is their new request: act on that.";
/** The last line of the note: what follows it is the user's, not nex's. */
export const RESTORE_END = "[nex] End of restored context.";
const TASK_OPEN = "The original task, verbatim:\n<task>\n";
const TASK_CLOSE = "\n</task>";

// Tools whose `path` argument names a file the model worked on.
const FILE_TOOLS = new Set(["read_file", "write_file", "edit_file"]);
const MAX_FILES = 5;
// Per file: a small file comes back whole; a larger one is only named (the model reads it again).
const FILE_LIMIT = 4 * 1024;
// All re-read files together take at most this share of the window (about 3.5 bytes per token).
const FILES_SHARE = 0.08;

/** Where re-read files come from: through the workspace guard, like AGENTS.md. */
export interface RestoreReader {
  workspace: string;
  allowedPaths: string[];
  privatePaths: string[];
}

/**
 * What a compaction summarised that the model needs verbatim: the session's first prompt, the todo
 * list, and the files it touched last (small ones re-read now, the rest named). Returns the notes to
 * append after the kept messages and what they carry.
 */
export async function restoreAfterCompaction(
  before: readonly Message[],
  after: readonly Message[],
  options: { window: number; reader: RestoreReader },
): Promise<{ notes: Message[]; restored: CompactionRestored }> {
  const kept = new Set(after);
  const summarised = before.filter((message) => !kept.has(message));
  const notes: Message[] = [];
  const restored: CompactionRestored = {
    task: false,
    todos: false,
    filesReread: [],
    filesNamed: [],
  };
  const todos = latestTodos(before);
  if (todos && latestTodos(after) === null) {
    const note = todoNote(todos);
    if (note) {
      notes.push(note);
      restored.todos = true;
    }
  }
  const sections: string[] = [];
  const task = originalTask(before);
  if (task && !after.some((message) => message === task.message)) {
    sections.push(`${TASK_OPEN}${task.text}${TASK_CLOSE}`);
    restored.task = true;
  }
  const visible = new Set(touchedFiles(after));
  const files = touchedFiles(summarised)
    .filter((path) => !visible.has(path))
    .slice(0, MAX_FILES);
  let room = Math.floor(options.window * FILES_SHARE * 3.5);
  const reread: string[] = [];
  for (const path of files) {
    const read = await readWorkspaceOwnFile({
      workspace: options.reader.workspace,
      name: path,
      limit: FILE_LIMIT,
      allowedPaths: options.reader.allowedPaths,
      privatePaths: options.reader.privatePaths,
    });
    // A file gone since is not worth a line: the summary says what happened to it.
    if (read.type === "missing") continue;
    if (
      read.type === "read" &&
      !read.truncated &&
      read.text.length <= room &&
      !read.text.includes("\0")
    ) {
      room -= read.text.length;
      reread.push(`<file path="${path}">\n${read.text}\n</file>`);
      restored.filesReread.push(path);
    } else restored.filesNamed.push(path);
  }
  if (reread.length > 0)
    sections.push(`Files you worked on recently, as they are on disk now:\n${reread.join("\n")}`);
  if (restored.filesNamed.length > 0)
    sections.push(
      `Other files you worked on recently (read them again before changing them): ${restored.filesNamed.join(", ")}`,
    );
  if (sections.length > 0)
    notes.push({
      type: "user",
      text: `${RESTORE_NOTE} ${RESTORE_LEAD}\n\n${sections.join("\n\n")}\n\n${RESTORE_END}`,
    });
  return { notes, restored };
}

/** The session's first prompt: the first user message that is not nex's, or the one an earlier restore carried. */
function originalTask(messages: readonly Message[]): { text: string; message: Message } | null {
  for (const message of messages) {
    if (message.type !== "user") continue;
    if (message.text.startsWith(RESTORE_NOTE)) {
      const start = message.text.indexOf(TASK_OPEN);
      const end = message.text.indexOf(TASK_CLOSE, start);
      if (start >= 0 && end > start)
        return { text: message.text.slice(start + TASK_OPEN.length, end), message };
      continue;
    }
    if (message.text.startsWith(SUMMARY_PREFIX) || message.text.startsWith("[nex]")) continue;
    return { text: message.text, message };
  }
  return null;
}

/** Workspace paths the file tools named, most recent first, each once; stored results are not files. */
function touchedFiles(messages: readonly Message[]): string[] {
  const seen: string[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.type !== "assistant") continue;
    for (let j = message.toolCalls.length - 1; j >= 0; j--) {
      const call = message.toolCalls[j];
      if (!call || !FILE_TOOLS.has(call.name)) continue;
      const path = pathOf(call.argumentsText);
      if (path && !path.startsWith("@results/") && !seen.includes(path)) seen.push(path);
    }
  }
  return seen;
}

function pathOf(argumentsText: string): string | null {
  try {
    const args = JSON.parse(argumentsText) as { path?: unknown };
    return typeof args.path === "string" && args.path.trim() !== "" ? args.path : null;
  } catch {
    return null;
  }
}
