// The eval runner (bench/eval/) against the stub endpoint: a scripted model that fixes a task's bug
// is recorded as solved with its requests, tokens and files; one that answers wrongly and calls a
// tool that does not exist is recorded as unsolved, with the refused call and its cause.
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runSuite } from "../../bench/eval/suite.ts";
import { loadTasks, selectTasks } from "../../bench/eval/tasks.ts";
import { scratchDir } from "../support/scratch-dir.ts";
import {
  type LoggedRequest,
  openaiText,
  openaiToolCall,
  type Script,
  startStubEndpoint,
} from "../support/stub-endpoint.ts";

type WireMessage = { role: string; content?: unknown };

/** The scripted model: what it answers depends on the task in the prompt and how far it got. */
function scriptedModel(request: LoggedRequest): Script {
  const messages = (request.body as { messages: WireMessage[] }).messages;
  const prompt = JSON.stringify(messages.find((m) => m.role === "user")?.content ?? "");
  const step = messages.filter((m) => m.role === "assistant").length;
  const usage = { input: 1000 + step, output: 20 };
  if (prompt.includes("stats.py")) {
    if (step === 0) return openaiToolCall({ name: "read_file", args: { path: "stats.py" }, usage });
    if (step === 1)
      return openaiToolCall({
        name: "edit_file",
        args: { path: "stats.py", old_string: "(len(values) + 1)", new_string: "len(values)" },
        usage,
      });
    return openaiText("Fixed the mean: it divided by one too many.", { usage });
  }
  if (step === 0) return openaiToolCall({ name: "find_definition", args: { name: "x" }, usage });
  return openaiText("pkg/util/hashing.py", { usage });
}

test("the eval runner records a solved and an unsolved task with their figures and refused calls", async (t) => {
  const stub = await startStubEndpoint({ handler: scriptedModel });
  const outDir = scratchDir("nex-eval-test-");
  t.after(async () => {
    await stub.close();
    rmSync(outDir, { recursive: true, force: true });
  });
  const tasks = selectTasks(loadTasks(), "fix-test-py,find-definition");
  const suite = await runSuite({
    baseUrl: `${stub.url}/v1`,
    model: "stub-model",
    tasks,
    outDir,
    maxTime: "2m",
  });

  const fixed = suite.results.find((r) => r.id === "fix-test-py");
  assert.ok(fixed, "fix-test-py ran");
  assert.equal(fixed.solved, true, fixed.failure || fixed.stderrTail);
  assert.equal(fixed.end, "done");
  assert.equal(fixed.requests, 3);
  assert.equal(fixed.inputTokens, 1000 + 1001 + 1002);
  assert.equal(fixed.outputTokens, 60);
  assert.deepEqual(fixed.changed, ["stats.py"]);
  assert.deepEqual(fixed.toolProblems, []);

  const wrong = suite.results.find((r) => r.id === "find-definition");
  assert.ok(wrong, "find-definition ran");
  assert.equal(wrong.solved, false);
  assert.match(wrong.failure, /answer does not match/);
  assert.equal(wrong.requests, 2);
  assert.equal(wrong.toolProblems.length, 1);
  assert.equal(wrong.toolProblems[0]?.tool, "find_definition");
  assert.match(wrong.toolProblems[0]?.kind ?? "", /^(refused|failed):/);
  assert.match(wrong.toolProblems[0]?.message ?? "", /find_definition/);

  const table = readFileSync(join(outDir, "results.md"), "utf8");
  assert.match(table, /\| fix-test-py \| yes \| 3 \|/);
  assert.match(table, /\| find-definition \| \*\*no\*\* \|/);
  assert.match(table, /Solved 1\/2/);
  const record = JSON.parse(readFileSync(join(outDir, "results.json"), "utf8"));
  assert.equal(record.results.length, 2);
  assert.match(readFileSync(join(outDir, "fix-test-py.events.jsonl"), "utf8"), /"type":"done"/);
});
