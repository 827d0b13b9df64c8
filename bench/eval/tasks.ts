// The task suite: each folder under tasks/ is one task, a tiny repository (`repo/`) and a task.json
// saying what to ask and how to tell whether it was done.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** One task as task.json describes it. Every check given must pass for the task to count as solved. */
export interface Task {
  id: string;
  dir: string;
  /** What the task exercises, for the table ("fix a failing test", ...). */
  kind: string;
  prompt: string;
  /** A shell command run in the workspace before nex (e.g. generating a large file); `$TASK_DIR` is set. */
  setup?: string;
  /** A shell command run in the workspace afterwards: exit 0 means solved. `$TASK_DIR` is set. */
  check?: string;
  /** A regular expression (case-insensitive) the final answer must match. */
  answer?: string;
  /** A shell command run in the workspace after setup: its trimmed output must appear in the answer. */
  answerFrom?: string;
  /** The workspace's files must be byte-identical afterwards (the right answer is to change nothing). */
  unchanged?: boolean;
  /** An answer that solves an answer task, for `--verify`. */
  solutionAnswer?: string;
}

export const tasksRoot = join(import.meta.dirname, "tasks");

export function loadTasks(root: string = tasksRoot): Task[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, entry.name, "task.json")))
    .map((entry) => loadTask(join(root, entry.name), entry.name))
    .sort((a, b) => a.id.localeCompare(b.id));
}

function loadTask(dir: string, id: string): Task {
  const raw = JSON.parse(readFileSync(join(dir, "task.json"), "utf8")) as Partial<Task>;
  if (typeof raw.prompt !== "string" || raw.prompt === "")
    throw new Error(`${id}/task.json: "prompt" is missing`);
  if (!raw.check && !raw.answer && !raw.answerFrom && !raw.unchanged)
    throw new Error(`${id}/task.json: no check ("check", "answer", "answerFrom" or "unchanged")`);
  return { ...raw, id, dir, kind: raw.kind ?? "", prompt: raw.prompt };
}

/** The tasks `--only` names (comma-separated ids or prefixes ending in `*`), in suite order. */
export function selectTasks(tasks: Task[], only: string | undefined): Task[] {
  if (!only) return tasks;
  const wanted = only
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = wanted.filter((name) => !tasks.some((task) => matches(task.id, name)));
  if (unknown.length > 0)
    throw new Error(
      `--only: no task named ${unknown.join(", ")} (tasks: ${tasks.map((t) => t.id).join(", ")})`,
    );
  return tasks.filter((task) => wanted.some((name) => matches(task.id, name)));
}

function matches(id: string, name: string): boolean {
  return name.endsWith("*") ? id.startsWith(name.slice(0, -1)) : id === name;
}
