import assert from "node:assert/strict";
import { test } from "node:test";
import { ITERATIONS } from "./crash-harness.ts";
import { fileCrashRun } from "./file-crash.ts";

test("write_file killed with SIGKILL at random moments leaves every file its old or its new version, and every journal resumes", async () => {
  const report = await fileCrashRun("write", 1);
  assert.equal(report.kills, ITERATIONS);
});
