// The eval runner waits for llama-server to finish an earlier task's abandoned request before it
// starts the next task (run r8: `checklist` got no answer in 8 minutes while the server still read
// `big-log`'s prompt), against the stub endpoint serving llama.cpp's `/slots`.
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { test } from "node:test";
import { waitForIdleServer } from "../../bench/eval/server-idle.ts";
import { runSuite } from "../../bench/eval/suite.ts";
import { loadTasks, selectTasks } from "../../bench/eval/tasks.ts";
import { scratchDir } from "../support/scratch-dir.ts";
import { json, openaiText, startStubEndpoint } from "../support/stub-endpoint.ts";

const busy = json([
  { id: 0, is_processing: false },
  { id: 1, is_processing: true },
]);
const idle = json([
  { id: 0, is_processing: false },
  { id: 1, is_processing: false },
]);

/** A stub whose `/slots` shows a busy slot for the first `busyLooks` looks, then none. */
async function serverBusyFor(busyLooks: number) {
  let looks = 0;
  const stub = await startStubEndpoint({
    routes: { "GET /slots": busy },
    handler: () => openaiText("Nothing to do."),
    onRequest: (request) => {
      if (request.path === "/slots" && ++looks > busyLooks) stub.setRoute("GET /slots", idle);
    },
  });
  return stub;
}

test("the runner's wait looks at /slots until no slot is busy, and says so", async () => {
  const stub = await serverBusyFor(2);
  const wait = await waitForIdleServer(`${stub.url}/v1`, { pollMs: 1 });
  await stub.close();
  assert.equal(stub.requestsTo("/slots").length, 3);
  assert.equal(wait.stillBusy, false);
  assert.equal(wait.unknown, false);
});

test("a server that stays busy is waited for only within the bound; one without /slots is not waited for", async () => {
  const stuck = await serverBusyFor(Number.POSITIVE_INFINITY);
  const wait = await waitForIdleServer(`${stuck.url}/v1`, { pollMs: 1, maxWaitMs: 0 });
  await stuck.close();
  assert.equal(wait.stillBusy, true);
  assert.equal(stuck.requestsTo("/slots").length, 1);

  const other = await startStubEndpoint({ routes: { "GET /slots": json({}, { status: 404 }) } });
  const unknown = await waitForIdleServer(`${other.url}/v1`, { pollMs: 1 });
  await other.close();
  assert.equal(unknown.unknown, true);
  assert.equal(other.requestsTo("/slots").length, 1);
});

test("a task's first model request is sent only once the server has finished earlier work, and the record says it waited", async (t) => {
  const stub = await serverBusyFor(2);
  const outDir = scratchDir("nex-eval-idle-");
  t.after(async () => {
    await stub.close();
    rmSync(outDir, { recursive: true, force: true });
  });
  const suite = await runSuite({
    baseUrl: `${stub.url}/v1`,
    model: "stub-model",
    tasks: selectTasks(loadTasks(), "change-nothing"),
    outDir,
    maxTime: "2m",
    idle: { pollMs: 1 },
  });
  const paths = stub.requests.map((request) => request.path);
  const firstModelRequest = paths.indexOf("/v1/chat/completions");
  assert.ok(firstModelRequest > 0, "the task ran");
  assert.equal(paths.slice(0, firstModelRequest).filter((p) => p === "/slots").length, 3);
  assert.equal(suite.results[0]?.serverWait.stillBusy, false);
  assert.equal(suite.results[0]?.serverWait.unknown, false);
});
