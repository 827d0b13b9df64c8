import assert from "node:assert/strict";
import { test } from "node:test";
import { ITERATIONS } from "./crash-harness.ts";
import { fileCrashRun } from "./file-crash.ts";

test("write_file in parts killed with SIGKILL at random moments leaves the target its old or its new version, and every journal resumes", async () => {
  const report = await fileCrashRun("parts", 3);
  assert.equal(report.kills, ITERATIONS);
});
