// workgraph names a chat by alias: `.wg/chat/coordinator-0` is a symlink to the session's own folder
// (`.wg/chat/<uuid>`). nex served under either name must be one handler of one folder, and, as a
// handler, write nothing to stdout (workgraph reads a handler's stdout as protocol).
import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { outbox, until } from "../support/chat-folder.ts";
import { makeSandbox, runNex, startNex } from "../support/cli.ts";
import { scratchDir } from "../support/scratch-dir.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText } from "../support/stub-scripts.ts";

test("--chat through workgraph's alias (a symlink to the session's folder) serves that folder, one handler whichever name starts it, and writes nothing to stdout", async () => {
  const stub = await startStubEndpoint({ handler: () => openaiText("answer: hello") });
  const box = makeSandbox();
  const root = scratchDir("nex-chat-root-");
  const session = join(root, "7f3c9a2e-1b4d-4c8e-9a0f-2d6b8e1c5a37");
  mkdirSync(session);
  symlinkSync(session, join(root, "coordinator-0"));
  const configDir = join(box.workspace, "..", "config", "nex");
  mkdirSync(configDir, { recursive: true });
  writeFileSync(join(configDir, "config.json"), JSON.stringify({ chatRoot: root }));
  const common = ["--model", "stub-model", "--base-url", `${stub.url}/v1`];
  common.push("--data-dir", box.dataDir);
  const env = { ...box.env, OPENAI_API_KEY: "k" };
  appendFileSync(
    join(session, "inbox.jsonl"),
    `${JSON.stringify({ id: 1, role: "user", content: "hello", request_id: "r1" })}\n`,
  );
  const nex = startNex(["--chat", "coordinator-0", ...common], { cwd: box.workspace, env });
  await until(() => outbox(session).length === 1, "the reply in the session's own folder");
  // The same folder by its own name is the same chat: refused, naming the handler that holds it.
  const second = await runNex(["--chat", session, ...common], { cwd: box.workspace, env });
  assert.equal(second.code, 3, second.stderr);
  assert.match(second.stderr, new RegExp(`${nex.child.pid}`));
  nex.child.kill("SIGTERM");
  const result = await nex.done;
  await stub.close();
  assert.deepEqual(
    outbox(session).map((r) => [r.request_id, r.content]),
    [["r1", "answer: hello"]],
  );
  assert.equal(result.stdout, "", "a handler's stdout stays empty");
  assert.equal(second.stdout, "");
});
