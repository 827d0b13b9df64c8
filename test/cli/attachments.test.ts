// `@path` in a prompt shows the model a file; what it showed counts as read, as a read_file page does:
// the model may then change the file without reading it again, but only what it was shown whole.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { toolResults } from "../faults/scenario.ts";
import { makeSandbox, runNex } from "../support/cli.ts";
import { type LoggedRequest, startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall, type Script } from "../support/stub-scripts.ts";

/** `nex run PROMPT` in a workspace of `files`; `answer` plays the model, request by request. */
async function run(
  files: Record<string, string>,
  prompt: string,
  answer: (turn: number, box: ReturnType<typeof makeSandbox>) => Script,
) {
  const box = makeSandbox();
  for (const [name, text] of Object.entries(files)) writeFileSync(join(box.workspace, name), text);
  let turn = 0;
  const stub = await startStubEndpoint({
    handler: (request: LoggedRequest) =>
      request.path.endsWith("/chat/completions")
        ? answer(turn++, box)
        : { type: "reply", status: 404, body: {} },
  });
  const result = await runNex(
    [
      "run",
      "--yes",
      "--model",
      "m",
      "--base-url",
      `${stub.url}/v1`,
      "--data-dir",
      box.dataDir,
      prompt,
    ],
    { cwd: box.workspace, env: box.env },
  );
  const requests = stub.requestsTo("/v1/chat/completions");
  await stub.close();
  return { ...result, box, requests };
}

const scripted =
  (answers: Script[]) =>
  (turn: number): Script =>
    answers[turn] ?? openaiText("done");

test("a file attached whole with @ may be written over without a read_file first", async () => {
  const run1 = await run(
    { "notes.txt": "alpha\nbeta\n" },
    "rewrite @notes.txt in capitals",
    scripted([
      openaiToolCall({ name: "write_file", args: { path: "notes.txt", content: "ALPHA\nBETA\n" } }),
      openaiText("Rewritten."),
    ]),
  );
  assert.equal(run1.code, 0, run1.stderr);
  assert.equal(readFileSync(join(run1.box.workspace, "notes.txt"), "utf8"), "ALPHA\nBETA\n");
});

test("a file attached only in part counts as partly read: replacing it whole is refused, nothing lost", async () => {
  // Larger than what @ may attach on the default 32k window (twice a tool result's share).
  const big = Array.from({ length: 5000 }, (_, i) => `line ${i + 1} of the big file\n`).join("");
  const run2 = await run(
    { "big.txt": big },
    "shorten @big.txt",
    scripted([
      openaiToolCall({ name: "write_file", args: { path: "big.txt", content: "short\n" } }),
      openaiText("Could not."),
    ]),
  );
  assert.equal(run2.code, 0, run2.stderr);
  assert.equal(
    readFileSync(join(run2.box.workspace, "big.txt"), "utf8"),
    big,
    "the file is intact",
  );
  const told = toolResults(run2.requests[1]).at(-1) ?? "";
  assert.match(told, /read only part of big\.txt|has not read all of it/);
});

test("a file changed after it was attached is stale: the write is refused with the usual words", async () => {
  const run3 = await run({ "a.txt": "one\n" }, "edit @a.txt", (turn, box) => {
    if (turn > 0) return openaiText("ok");
    // Someone else changes the file after nex attached it and before the model writes.
    writeFileSync(join(box.workspace, "a.txt"), "one\ntwo (theirs)\n");
    return openaiToolCall({ name: "write_file", args: { path: "a.txt", content: "mine\n" } });
  });
  assert.equal(run3.code, 0, run3.stderr);
  assert.equal(readFileSync(join(run3.box.workspace, "a.txt"), "utf8"), "one\ntwo (theirs)\n");
  assert.match(
    toolResults(run3.requests[1]).at(-1) ?? "",
    /modified since you read it|changed since you read it/,
  );
});
