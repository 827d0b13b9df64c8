// Checks the checks: each task's check must fail on the untouched repository (unless changing
// nothing is the right answer) and pass with its reference solution (`solution/` laid over the repo,
// `solutionAnswer` or the computed answer as the answer).
import { cpSync, existsSync } from "node:fs";
import { join } from "node:path";
import { checkTask } from "./checks.ts";
import type { Task } from "./tasks.ts";
import { prepareWorkspace } from "./workspace.ts";

export interface Verdict {
  id: string;
  ok: boolean;
  problems: string[];
}

export function verifyTask(task: Task): Verdict {
  const problems: string[] = [];
  const untouched = prepareWorkspace(task);
  try {
    const changeNothing = task.unchanged === true;
    // Where changing nothing is right, the untouched repository with the right answer passes.
    const before = checkTask(task, untouched, changeNothing ? (task.solutionAnswer ?? "") : "");
    if (before.solved !== changeNothing)
      problems.push(
        changeNothing
          ? `the untouched repository fails its check: ${before.failure}`
          : "the untouched repository already passes its check",
      );
  } finally {
    untouched.remove();
  }
  const solved = prepareWorkspace(task);
  try {
    const solution = join(task.dir, "solution");
    if (existsSync(solution)) cpSync(solution, solved.dir, { recursive: true });
    const answer = task.solutionAnswer ?? solved.expectedAnswer ?? "";
    const after = checkTask(task, solved, answer);
    if (!after.solved) problems.push(`the reference solution fails: ${after.failure}`);
  } finally {
    solved.remove();
  }
  return { id: task.id, ok: problems.length === 0, problems };
}
