// `nex run` on the Responses API (`"api": "responses"`), through the real loop: a call cut by
// max_output_tokens writes nothing and the model is told by call_id; a whole call runs, and the next
// request carries the reasoning item back before the call, then the call's output.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, type NexResult, runNex } from "../support/cli.ts";
import { type StubEndpoint, startStubEndpoint } from "../support/stub-endpoint.ts";
import { responsesStream, type Script } from "../support/stub-scripts.ts";

type Input = Array<Record<string, unknown>>;

async function run(
  scripts: Script[],
  model = "gpt-5",
): Promise<{ result: NexResult; stub: StubEndpoint; workspace: string }> {
  const stub = await startStubEndpoint({ scripts });
  const box = makeSandbox();
  const dir = join(box.env.XDG_CONFIG_HOME as string, "nex");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "config.json"), JSON.stringify({ api: "responses" }));
  const result = await runNex(
    [
      "run",
      "--model",
      model,
      "--base-url",
      `${stub.url}/v1`,
      "--data-dir",
      box.dataDir,
      "--yes",
      "write a.txt",
    ],
    { cwd: box.workspace, env: { ...box.env, OPENAI_API_KEY: "sk-responses-run" } },
  );
  await stub.close();
  return { result, stub, workspace: box.workspace };
}

test("a write_file cut by max_output_tokens writes nothing, and the model is told by its call_id", async () => {
  const { result, stub, workspace } = await run(
    [
      responsesStream({
        calls: [
          {
            name: "write_file",
            args: { path: "a.txt", content: "complete-looking" },
            callId: "call_cut",
            status: "incomplete",
          },
        ],
        ending: "incomplete",
        usage: { input: 100, output: 4096 },
      }),
      responsesStream({ text: "I could not write the file." }),
    ],
    "stub-model",
  );
  assert.equal(existsSync(join(workspace, "a.txt")), false);
  const second = stub.requestsTo("/v1/responses")[1]?.body as { input: Input };
  const output = second.input.find((item) => item.type === "function_call_output");
  assert.equal(output?.call_id, "call_cut");
  assert.match(String(output?.output), /nothing was run or written/);
  assert.match(result.stderr, /write_file refused/);
  assert.doesNotMatch(result.stderr, /✓ write_file/);
});

test("a whole write_file runs, and the next request sends the reasoning item back before the call, then its output", async () => {
  const { result, stub, workspace } = await run([
    responsesStream({
      reasoning: "Write the file.",
      encrypted: "gAAAA-encrypted-reasoning",
      calls: [
        { name: "write_file", args: { path: "a.txt", content: "hello\n" }, callId: "call_w" },
      ],
    }),
    responsesStream({ text: "Wrote a.txt." }),
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(join(workspace, "a.txt"), "utf8"), "hello\n");
  assert.match(result.stdout, /Wrote a\.txt\./);
  assert.doesNotMatch(result.stdout, /Write the file\./, "reasoning is not part of the answer");
  const [first, second] = stub
    .requestsTo("/v1/responses")
    .map((r) => r.body as Record<string, unknown>);
  assert.deepEqual(first?.include, ["reasoning.encrypted_content"]);
  assert.equal(first?.store, false);
  const input = (second?.input ?? []) as Input;
  const types = input.map((item) => item.type ?? item.role);
  assert.deepEqual(types.slice(-3), ["reasoning", "function_call", "function_call_output"]);
  assert.equal(input.at(-3)?.encrypted_content, "gAAAA-encrypted-reasoning");
  assert.equal(input.at(-2)?.call_id, "call_w");
  assert.equal(input.at(-1)?.call_id, "call_w");
});

test("a resumed session sends the journaled reasoning item back with its tool call", async () => {
  const box = makeSandbox();
  const dir = join(box.env.XDG_CONFIG_HOME as string, "nex");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "config.json"), JSON.stringify({ api: "responses" }));
  const env = { ...box.env, OPENAI_API_KEY: "sk-responses-run" };
  const first = await startStubEndpoint({
    scripts: [
      responsesStream({
        reasoning: "Write it.",
        encrypted: "gAAAA-kept-in-the-journal",
        calls: [{ name: "write_file", args: { path: "a.txt", content: "x\n" }, callId: "call_j" }],
      }),
      responsesStream({ text: "Done." }),
    ],
  });
  const run = await runNex(
    ["run", "--model", "gpt-5", "--base-url", `${first.url}/v1`, "--yes", "write a.txt"],
    { cwd: box.workspace, env },
  );
  await first.close();
  assert.equal(run.code, 0, run.stderr);
  const second = await startStubEndpoint({ scripts: [responsesStream({ text: "Still done." })] });
  const resumed = await runNex(
    ["resume", "--last", "--model", "gpt-5", "--base-url", `${second.url}/v1`, "and now?"],
    { cwd: box.workspace, env },
  );
  await second.close();
  assert.equal(resumed.code, 0, resumed.stderr);
  const body = second.requestsTo("/v1/responses")[0]?.body as { input: Input } | undefined;
  const input = body?.input ?? [];
  const reasoning = input.findIndex((item) => item.type === "reasoning");
  assert.equal(input[reasoning]?.encrypted_content, "gAAAA-kept-in-the-journal");
  assert.equal(input[reasoning + 1]?.type, "function_call");
  assert.equal(input[reasoning + 1]?.call_id, "call_j");
});
