// Background jobs through the real `nex run`: a job starts and the call returns; its output can be
// read and it can be stopped; the model hears when one ends; none outlives the run unannounced.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, type Sandbox, startNex } from "../support/cli.ts";
import { processesWith } from "../support/processes.ts";
import {
  openaiText,
  openaiToolCall,
  type Script,
  startStubEndpoint,
} from "../support/stub-endpoint.ts";
import { until } from "../support/until.ts";

const bash = (args: Record<string, unknown>): Script => openaiToolCall({ name: "bash", args });
const jobs = (args: Record<string, unknown>): Script => openaiToolCall({ name: "jobs", args });

async function run(box: Sandbox, scripts: Script[]) {
  const stub = await startStubEndpoint({ scripts });
  const args = ["run", "--yes", "--model", "stub-model", "--base-url", `${stub.url}/v1`, "go"];
  const result = await startNex(args, { cwd: box.workspace, env: box.env }).done;
  await stub.close();
  const bodies = stub.requestsTo("/v1/chat/completions").map((r) => JSON.stringify(r.body));
  return { result, bodies };
}

// A job that prints a line per tick until told to stop by a file.
const ticker = (marker: string) =>
  `exec -a ${marker} bash -c 'i=0; while [ ! -e stop-${marker} ]; do echo tick-$i; i=$((i+1)); sleep 0.05; done; echo finished; touch done-${marker}; exit 3'`;

test("a background job starts at once, its output can be read, and stopping it ends its processes", {
  timeout: 120_000,
}, async () => {
  const box = makeSandbox();
  const marker = `nexjob${randomUUID().slice(0, 8)}`;
  const { result, bodies } = await run(box, [
    bash({ command: ticker(marker), background: true }),
    jobs({ action: "output", id: 1, lines: 3 }),
    jobs({ action: "stop", id: 1 }),
    jobs({ action: "list" }),
    openaiText("done"),
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(bodies[1] ?? "", /Started job 1 \(running for/);
  assert.match(bodies[2] ?? "", /tick-\d+/);
  assert.match(bodies[3] ?? "", /Stopped job 1 \(stopped by nex/);
  assert.match(bodies[4] ?? "", /job 1 \(stopped by nex/);
  assert.deepEqual(processesWith(marker), []);
});

test("the model is told at the next turn boundary when a job ends, with its exit code and last lines", {
  timeout: 120_000,
}, async () => {
  const box = makeSandbox();
  const marker = `nexjob${randomUUID().slice(0, 8)}`;
  const { result, bodies } = await run(box, [
    bash({ command: ticker(marker), background: true }),
    // Asks the job to finish and waits for its last word (commands run in a PID namespace of their
    // own: the job's processes are out of their sight, its files are not).
    bash({
      command: `touch stop-${marker}; until [ -e done-${marker} ]; do sleep 0.05; done`,
    }),
    jobs({ action: "list" }),
    openaiText("done"),
  ]);
  assert.equal(result.code, 0, result.stderr);
  const told = bodies.slice(2).join("\n");
  assert.match(
    told,
    /\[nex\] Background job 1 \(exited with code 3[^)]*\)[^"]*has ended\. Its last lines:(\\ntick-\d+)*\\nfinished"/,
  );
});

test("a job still running when `nex run` ends is stopped, and the run says so", {
  timeout: 120_000,
}, async () => {
  const box = makeSandbox();
  const marker = `nexjob${randomUUID().slice(0, 8)}`;
  const { result } = await run(box, [
    bash({ command: ticker(marker), background: true }),
    openaiText("started it"),
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /Stopped background job 1 .*still running when the task ended/);
  await until(() => processesWith(marker).length === 0, "the job's processes are gone");
  assert.ok(!existsSync(join(box.workspace, "never")));
});

test("a job that fails at once is reported once, as failed, not as started", {
  timeout: 120_000,
}, async () => {
  const box = makeSandbox();
  const { result, bodies } = await run(box, [
    bash({ command: "echo no-such-server >&2; exit 7", background: true }),
    openaiText("ok"),
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(bodies[1] ?? "", /The background job ended at once: job 1 \(exited with code 7/);
  assert.match(bodies[1] ?? "", /no-such-server/);
  assert.doesNotMatch(bodies[1] ?? "", /Started job/);
  // Said once, in the call's own result: not again as a job that ended at the turn's boundary.
  assert.doesNotMatch(bodies[1] ?? "", /Background job 1 .*has ended/);
  assert.doesNotMatch(result.stderr, /Background job 1 .*has ended/);
});

test("at most four jobs run at once; a fifth is refused with what to do", {
  timeout: 120_000,
}, async () => {
  const box = makeSandbox();
  const marker = `nexjob${randomUUID().slice(0, 8)}`;
  const start = () => bash({ command: ticker(marker), background: true });
  const { result, bodies } = await run(box, [
    start(),
    start(),
    start(),
    start(),
    start(),
    openaiText("ok"),
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(bodies[5] ?? "", /Not started: 4 background jobs are running/);
  await until(() => processesWith(marker).length === 0, "every job is stopped");
});
