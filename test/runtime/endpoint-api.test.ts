// `"api": "responses"` in the config: where it may be set, what it refuses, and that each request
// goes out on its model's API.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ConfigError, type NexConfig, resolveConfig } from "../../src/runtime/config/config.ts";
import { createClient, wireFormatOf } from "../../src/runtime/config/endpoint-client.ts";
import { collect, doneTurn, sampleRequest } from "../providers/helpers.ts";
import { scratchDir } from "../support/scratch-dir.ts";
import {
  openaiText,
  responsesStream,
  type StubEndpoint,
  startStubEndpoint,
} from "../support/stub-endpoint.ts";

function configWith(file: Record<string, unknown>, flags: Record<string, string> = {}): NexConfig {
  const dir = scratchDir("nex-api-");
  mkdirSync(join(dir, "config", "nex"), { recursive: true });
  writeFileSync(join(dir, "config", "nex", "config.json"), JSON.stringify(file));
  const env = { HOME: dir, XDG_CONFIG_HOME: join(dir, "config"), XDG_DATA_HOME: join(dir, "data") };
  return resolveConfig(flags, env, dir);
}

let stub: StubEndpoint;
before(async () => {
  stub = await startStubEndpoint();
});
after(() => stub.close());

test("without an api setting nex speaks Chat Completions, as before", () => {
  const config = configWith({ baseUrl: "http://127.0.0.1:1/v1" });
  assert.equal(config.api, "chat");
  assert.equal(wireFormatOf(config, "any-model"), "openai");
});

test('"api": "responses" is taken at the top level, per endpoint, and per model, the model\'s word winning', () => {
  assert.equal(configWith({ api: "responses" }).api, "responses");
  const named = configWith({
    endpoint: "lab",
    endpoints: {
      lab: {
        baseUrl: "http://127.0.0.1:1/v1",
        api: "responses",
        models: { "qwen3-coder": { api: "chat" } },
      },
    },
  });
  assert.equal(wireFormatOf(named, "gpt-5"), "responses");
  assert.equal(wireFormatOf(named, "qwen3-coder"), "openai");
  const perModel = configWith({ models: { "gpt-5-codex": { api: "responses" } } });
  assert.equal(perModel.api, "chat");
  assert.equal(wireFormatOf(perModel, "gpt-5-codex"), "responses");
  assert.equal(wireFormatOf(perModel, "gpt-4o"), "openai");
});

test('"api": "responses" on an Anthropic endpoint, or an unknown api, is refused with what to change', () => {
  assert.throws(
    () => configWith({ provider: "anthropic", api: "responses" }),
    (error: Error) =>
      error instanceof ConfigError &&
      /the provider is anthropic: the Responses API is OpenAI's/.test(error.message) &&
      /Remove it, or set "provider": "openai"/.test(error.message),
  );
  assert.throws(
    () => configWith({ provider: "anthropic", models: { "claude-x": { api: "responses" } } }),
    /for the model claude-x, but the provider is anthropic/,
  );
  assert.throws(() => configWith({ api: "completions" }), /\/api Invalid/);
});

test("each request goes out on its model's API: a model set to responses posts /responses, the others /chat/completions", async () => {
  const config = configWith({
    baseUrl: `${stub.url}/v1`,
    models: { "gpt-5": { api: "responses" } },
  });
  const client = createClient(config);
  stub.enqueue(responsesStream({ text: "from responses" }), openaiText("from chat"));
  const first = doneTurn(await collect(client, sampleRequest({ model: "gpt-5" })));
  const second = doneTurn(await collect(client, sampleRequest({ model: "gpt-4o" })));
  assert.equal(first.text, "from responses");
  assert.equal(second.text, "from chat");
  assert.deepEqual(
    stub.requests.slice(-2).map((request) => request.path),
    ["/v1/responses", "/v1/chat/completions"],
  );
});
