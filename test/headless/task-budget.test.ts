// workgraph's task time budget (WG_TASK_TIMEOUT_SECS counted from WG_SPAWN_EPOCH), which it sets for
// every executor it spawns, through the real `nex run` against the stub endpoint.
import assert from "node:assert/strict";
import { test } from "node:test";
import { taskBudget } from "../../src/cli/task-budget.ts";
import { makeSandbox, runNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { hang, openaiText } from "../support/stub-scripts.ts";

function setUp(url: string, extra: Record<string, string>) {
  const box = makeSandbox();
  const base = ["run", "--model", "stub-model", "--base-url", `${url}/v1`];
  base.push("--data-dir", box.dataDir);
  return { box, base, env: { ...box.env, OPENAI_API_KEY: "k", ...extra } };
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

test("a run workgraph spawned keeps the task's time budget: stopped when it is spent, exit 5, saying which budget", {
  timeout: 120_000,
}, async () => {
  const stub = await startStubEndpoint({ scripts: [hang()] });
  // No spawn time: the budget counts from nex's start (what is left of it is the unit test's below).
  const { box, base, env } = setUp(stub.url, { WG_TASK_TIMEOUT_SECS: "3" });
  const result = await runNex([...base, "take forever"], { cwd: box.workspace, env });
  await stub.close();
  assert.equal(result.code, 5, result.stderr);
  assert.match(
    result.stderr,
    /the time budget is the 3s left of the task's \(workgraph's WG_TASK_TIMEOUT_SECS=3\)/,
  );
  assert.match(result.stderr, /\(workgraph's WG_TASK_TIMEOUT_SECS=3\) is spent; stopping the run/);
  assert.match(
    result.stderr,
    /interrupted \(the workgraph's WG_TASK_TIMEOUT_SECS=3 budget was spent\)/,
  );
  assert.doesNotMatch(result.stderr, /interrupted by the user/);
});

/** A run with workgraph's variables set that must end before any request. */
async function runRefused(extra: Record<string, string>) {
  const stub = await startStubEndpoint({ scripts: [openaiText("never asked")] });
  const { box, base, env } = setUp(stub.url, extra);
  const result = await runNex([...base, "do it"], { cwd: box.workspace, env });
  await stub.close();
  assert.equal(stub.requests.length, 0, "nothing was sent");
  return result;
}

test("a task whose budget was spent before nex started sends nothing and exits 5", async () => {
  const result = await runRefused({
    WG_TASK_TIMEOUT_SECS: "60",
    WG_SPAWN_EPOCH: String(nowSeconds() - 120),
  });
  assert.equal(result.code, 5, result.stderr);
  assert.match(result.stderr, /was spent before nex started; nothing was sent/);
});

test("a budget variable that is not a number of seconds is refused before any request, naming it", async () => {
  const result = await runRefused({ WG_TASK_TIMEOUT_SECS: "10m" });
  assert.equal(result.code, 3, result.stderr);
  assert.match(
    result.stderr,
    /WG_TASK_TIMEOUT_SECS \(the task's time budget\) must be a whole number of seconds, not "10m"/,
  );
});

test("the smaller of --max-time and the task's budget holds; a spawn time ahead of the clock never adds time", () => {
  const now = 1_000_000_000_000;
  const env = { WG_TASK_TIMEOUT_SECS: "600", WG_SPAWN_EPOCH: String(now / 1000 - 100) };
  assert.deepEqual(taskBudget(60_000, env, now), { ms: 60_000, label: "--max-time", note: null });
  const task = taskBudget(3_600_000, env, now);
  assert.equal(task?.ms, 500_000);
  assert.match(task?.note ?? "", /500s left .*spawned 100s ago\), less than --max-time/);
  const ahead = taskBudget(undefined, { ...env, WG_SPAWN_EPOCH: String(now / 1000 + 50) }, now);
  assert.equal(ahead?.ms, 600_000);
  assert.equal(taskBudget(undefined, {}, now), null);
  assert.equal(taskBudget(undefined, { WG_TASK_TIMEOUT_SECS: "0" }, now), null);
});
