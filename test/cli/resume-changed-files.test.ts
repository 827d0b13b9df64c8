// A resumed session's first prompt names the files that changed since the model read them, through
// the real `nex run` against the stub endpoint.
import assert from "node:assert/strict";
import { unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";

test("resume: files read before and changed or deleted since are named with the first prompt; unchanged ones are not", async () => {
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({ name: "read_file", args: { path: "a.txt" } }),
      openaiToolCall({ name: "read_file", args: { path: "b.txt" } }),
      openaiToolCall({ name: "read_file", args: { path: "c.txt" } }),
      openaiText("read them"),
      openaiText("noted"),
    ],
  });
  const box = makeSandbox();
  for (const name of ["a.txt", "b.txt", "c.txt"])
    writeFileSync(join(box.workspace, name), `${name} v1\n`);
  const env = { ...box.env, OPENAI_API_KEY: "k" };
  const base = [
    "run",
    "--model",
    "stub-model",
    "--base-url",
    `${stub.url}/v1`,
    "--data-dir",
    box.dataDir,
  ];
  const first = await runNex([...base, "--session-id", "job", "read the files"], {
    cwd: box.workspace,
    env,
  });
  assert.equal(first.code, 0, first.stderr);
  writeFileSync(join(box.workspace, "a.txt"), "a.txt v2, changed by someone else\n");
  unlinkSync(join(box.workspace, "b.txt"));
  const second = await runNex([...base, "--session-id", "job", "go on"], {
    cwd: box.workspace,
    env,
  });
  await stub.close();
  assert.equal(second.code, 0, second.stderr);
  const last = JSON.stringify(stub.requestsTo("/v1/chat/completions").at(-1)?.body);
  assert.match(
    last,
    /Files you read earlier changed on disk since you last saw them: a\.txt \(changed\), b\.txt \(deleted\)\./,
  );
  assert.doesNotMatch(last, /c\.txt \((changed|deleted)\)/);
  // nex's note comes before the user's words, which end the message; it is not a hook's context.
  assert.match(last, /b\.txt \(deleted\)\.[^"]*\\n\\ngo on"/);
  assert.doesNotMatch(last, /hook context/);
});
