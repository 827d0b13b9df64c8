// Whether a task was solved: its checks against the workspace nex left and the answer it gave.
import type { Task } from "./tasks.ts";
import { changedFiles, fingerprint, shell, type TaskWorkspace } from "./workspace.ts";

export interface CheckOutcome {
  solved: boolean;
  /** Why not, in words (the first failing check); empty when solved. */
  failure: string;
  /** Files the run added, changed or removed. */
  changed: string[];
}

export function checkTask(task: Task, workspace: TaskWorkspace, answer: string): CheckOutcome {
  const changed = changedFiles(workspace.fingerprint, fingerprint(workspace.dir));
  const fail = (failure: string): CheckOutcome => ({ solved: false, failure, changed });
  if (task.unchanged && changed.length > 0)
    return fail(`changed files where nothing should change: ${changed.join(", ")}`);
  if (task.answer && !new RegExp(task.answer, "i").test(answer))
    return fail(`answer does not match /${task.answer}/i: ${quote(answer)}`);
  if (workspace.expectedAnswer !== null && !answer.includes(workspace.expectedAnswer))
    return fail(`answer does not contain ${workspace.expectedAnswer}: ${quote(answer)}`);
  if (task.check) {
    const result = shell(task.check, workspace.dir, task.dir);
    if (result.status !== 0)
      return fail(`check failed (exit ${result.status}): ${lastLines(result.output)}`);
  }
  return { solved: true, failure: "", changed };
}

function quote(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return JSON.stringify(flat.length > 160 ? `${flat.slice(0, 160)}…` : flat);
}

function lastLines(text: string): string {
  const lines = text.trim().split("\n").slice(-3).join(" | ");
  return lines.length > 300 ? `…${lines.slice(-300)}` : lines || "(no output)";
}
