// `--inbox` fed with workgraph's own messages (`wg msg`): the lines of its message files, whose text
// is `body`, whose author is `sender` and whose `priority` may be "urgent".
import assert from "node:assert/strict";
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, startNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall, status } from "../support/stub-scripts.ts";

type Body = { messages: Array<{ role: string; content: unknown }> };

test("--inbox reads workgraph's message lines: the body reaches the model at the next turn boundary, with who sent it", async () => {
  let asked: () => void = () => {};
  const firstRequest = new Promise<void>((resolve) => {
    asked = resolve;
  });
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let chats = 0;
  const stub = await startStubEndpoint({
    handler: async (request) => {
      if (!request.path.endsWith("/chat/completions")) return status(404);
      chats += 1;
      if (chats === 1) {
        asked();
        await released;
        return openaiToolCall({ name: "list_dir", args: { path: "." } });
      }
      return openaiText("Noted.");
    },
  });
  const box = makeSandbox();
  const inbox = join(box.workspace, "..", "messages.jsonl");
  writeFileSync(inbox, "");
  const run = startNex(
    [
      "run",
      "--model",
      "stub-model",
      "--base-url",
      `${stub.url}/v1`,
      "--data-dir",
      box.dataDir,
    ].concat(["--inbox", inbox, "look around"]),
    { cwd: box.workspace, env: { ...box.env, OPENAI_API_KEY: "k" } },
  );
  await firstRequest;
  const message = {
    id: 1,
    timestamp: "2026-11-27T06:02:00Z",
    sender: "coordinator",
    body: "the API task finished: rebase on main before you commit",
    priority: "normal",
    status: "sent",
  };
  // A bad line after it: once nex names that one, it has read the message before it.
  appendFileSync(inbox, `${JSON.stringify(message)}\n{"status":"read"}\n`);
  while (!run.stderrSoFar().includes("inbox line 2"))
    await new Promise((resolve) => setTimeout(resolve, 25));
  release();
  const result = await run.done;
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const second = JSON.stringify(
    (stub.requestsTo("/v1/chat/completions")[1]?.body as Body | undefined)?.messages,
  );
  assert.match(
    second,
    /orchestrator's inbox \([^)]*messages\.jsonl, line 1\): \(from coordinator\) the API task finished: rebase on main before you commit/,
  );
  assert.match(result.stderr, /inbox line 2 is not a message and was skipped/);
});
