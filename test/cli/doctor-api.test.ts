// `nex doctor` and the OpenAI API a server speaks: Chat Completions or Responses (`"api": "responses"`).
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, type NexResult, runNex } from "../support/cli.ts";
import { type StubEndpoint, startStubEndpoint } from "../support/stub-endpoint.ts";
import { json, openaiText, responsesStream, status } from "../support/stub-scripts.ts";

const KEY = "sk-doctor-api-NEVER-PRINTED";
const MODEL = "stub-model";

const modelList = () =>
  json({ object: "list", data: [{ id: MODEL, object: "model", max_model_len: 32_768 }] });

/** Runs `nex doctor` with this config file (when given) against the stub. */
async function doctor(stub: StubEndpoint, config?: Record<string, unknown>): Promise<NexResult> {
  const box = makeSandbox();
  const env: Record<string, string> = { ...box.env, OPENAI_API_KEY: KEY };
  if (config) {
    const dir = join(box.env.XDG_CONFIG_HOME as string, "nex");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "config.json"), JSON.stringify(config));
  }
  return runNex(["doctor", "--base-url", stub.url, "--model", MODEL], { cwd: box.workspace, env });
}

function line(result: NexResult, title: string): string {
  return result.stdout.split("\n").find((text) => text.includes(`${title}:`)) ?? "";
}

test('nex doctor on a server that answers 404 on chat completions but serves /responses says to set "api": "responses"', async () => {
  const stub = await startStubEndpoint({
    routes: { "GET /models": modelList(), "POST /chat/completions": status(404) },
    scripts: [responsesStream({ text: "ok" })],
  });
  const result = await doctor(stub);
  await stub.close();
  assert.equal(result.code, 1, result.stdout + result.stderr);
  assert.match(line(result, "streaming works"), /^FAIL/);
  assert.match(result.stdout, /serves the Responses API \(POST \/responses answered 200\)/);
  assert.match(result.stdout, /set "api": "responses"/);
  const probe = stub.requestsTo("/responses")[0]?.body as Record<string, unknown>;
  assert.equal(probe.stream, false);
  assert.equal(probe.store, false);
  assert.ok(!result.stdout.includes(KEY) && !result.stderr.includes(KEY));
});

test('nex doctor with "api": "responses" on a server that serves only chat completions says to remove it', async () => {
  const stub = await startStubEndpoint({
    routes: { "GET /models": modelList(), "POST /responses": status(404) },
    scripts: [openaiText("ok")],
  });
  const result = await doctor(stub, { api: "responses" });
  await stub.close();
  assert.equal(result.code, 1, result.stdout + result.stderr);
  assert.match(line(result, "streaming works"), /^FAIL/);
  assert.match(result.stdout, /serves Chat Completions .*remove "api": "responses"/);
});

test("nex doctor passes a healthy Responses endpoint: response.completed, a whole tool call, an honest cut", async () => {
  const stub = await startStubEndpoint({
    routes: { "GET /models": modelList() },
    scripts: [
      responsesStream({ text: "ok" }),
      responsesStream({ calls: [{ name: "record_word", args: { word: "ready" } }] }),
      responsesStream({ text: "1 2 3", ending: "incomplete", usage: { input: 30, output: 5 } }),
      responsesStream({ text: "ok", usage: { input: 5300, output: 1 } }),
      responsesStream({ text: "ok", usage: { input: 5300, output: 1 }, cachedTokens: 5200 }),
    ],
  });
  const result = await doctor(stub, { api: "responses" });
  await stub.close();
  assert.match(
    line(result, "streaming works"),
    /^PASS .*`completed`, response\.completed/,
    result.stdout,
  );
  assert.match(line(result, "tool calls work"), /^PASS/, result.stdout);
  assert.match(line(result, "truncation reported honestly"), /^PASS/, result.stdout);
  assert.match(line(result, "prompt prefix reused"), /^PASS/, result.stdout);
  assert.equal(stub.requestsTo("/chat/completions").length, 0);
  assert.equal(stub.requestsTo("/responses").length, 5);
});
