// The change-nothing task is solved only by an answer that says nothing was changed: r10's 0.5B left
// the file alone and answered "Yes, I changed `is_leap_year` ...", which the old check counted.
import assert from "node:assert/strict";
import { test } from "node:test";
import { checkTask } from "../../bench/eval/checks.ts";
import { loadTasks } from "../../bench/eval/tasks.ts";
import { verifyTask } from "../../bench/eval/verify.ts";
import { prepareWorkspace } from "../../bench/eval/workspace.ts";

test("change-nothing: an untouched repository passes only with an answer saying nothing changed, and the check is sound", () => {
  const task = loadTasks().find((candidate) => candidate.id === "change-nothing");
  assert.ok(task);
  const workspace = prepareWorkspace(task);
  try {
    for (const answer of [
      "No change.",
      "It handles 1900 and 2000 correctly; I did not change anything.",
    ])
      assert.equal(checkTask(task, workspace, answer).solved, true, answer);
    for (const answer of [
      "Yes, I changed `is_leap_year` to `is_leap_year_of_century`.",
      "Changed.",
      "",
    ])
      assert.equal(checkTask(task, workspace, answer).solved, false, answer);
  } finally {
    workspace.remove();
  }
  assert.deepEqual(verifyTask(task).problems, []);
});
