// Across processes too, the wire never carries two user messages in a row: a run whose request
// failed leaves its prompt unanswered in the journal; resuming it with a new prompt, or after a
// `!command` note, sends the user's words as one user turn.
import assert from "node:assert/strict";
import { test } from "node:test";
import { makeSandbox, type Sandbox, startNex } from "../support/cli.ts";
import { type Script, startStubEndpoint, status } from "../support/stub-endpoint.ts";
import { openaiText } from "../support/stub-scripts.ts";

interface WireMessage {
  role: string;
  content: unknown;
}

async function run(box: Sandbox, args: string[], scripts: Script[]) {
  const stub = await startStubEndpoint({ scripts });
  const [command = "run", ...rest] = args;
  const result = await startNex(
    [command, "--model", "stub-model", "--base-url", `${stub.url}/v1`, ...rest],
    { cwd: box.workspace, env: box.env },
  ).done;
  await stub.close();
  const bodies = stub
    .requestsTo("/v1/chat/completions")
    .map((r) =>
      (r.body as { messages: WireMessage[] }).messages.filter((m) => m.role !== "system"),
    );
  return { result, bodies };
}

function roles(messages: WireMessage[]): string[] {
  return messages.map((m) => m.role);
}

test("a failed run, then a resume with a new prompt: one user turn carries both prompts", async () => {
  const box = makeSandbox();
  const failed = await run(
    box,
    ["run", "first task"],
    [status(400, { body: { error: { message: "stub: refused" } } })],
  );
  assert.notEqual(failed.result.code, 0);
  const resumed = await run(box, ["resume", "--last", "second task"], [openaiText("Both.")]);
  assert.equal(resumed.result.code, 0, resumed.result.stderr);
  const body = resumed.bodies[0] ?? [];
  assert.deepEqual(roles(body), ["user"]);
  assert.match(String(body[0]?.content), /first task[\s\S]*second task/);
});

test("a !command note then a prompt: sent as one user turn", async () => {
  const box = makeSandbox();
  const noted = await run(box, ["run", "--yes", "!echo hi-$((40+2))"], [openaiText("never")]);
  assert.equal(noted.result.code, 0, noted.result.stderr);
  const asked = await run(box, ["resume", "--last", "what did it print?"], [openaiText("42.")]);
  assert.equal(asked.result.code, 0, asked.result.stderr);
  const body = asked.bodies[0] ?? [];
  assert.deepEqual(roles(body), ["user"]);
  assert.match(String(body[0]?.content), /hi-42[\s\S]*what did it print\?/);
});
