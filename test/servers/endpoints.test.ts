// Named endpoints: `-e NAME` or `NAME:model` picks a server of the config with its own key variable
// and models; keys stay in the environment and never reach a command, the screen or the model.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { keys } from "../support/pty.ts";
import { type StubEndpoint, startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { startNexTui } from "../tui/cli-harness.ts";
import { typeAndSubmit } from "../tui/tui-harness.ts";

const KEY_A = "sk-lambda01-SECRET-never-shown";
const KEY_B = "sk-lambda02-SECRET-never-shown";

function writeConfig(configHome: string, config: object): void {
  mkdirSync(join(configHome, "nex"), { recursive: true });
  writeFileSync(join(configHome, "nex", "config.json"), JSON.stringify(config));
}

function endpointsConfig(a: StubEndpoint, b: StubEndpoint) {
  return {
    endpoints: {
      lambda01: {
        provider: "openai",
        baseUrl: a.url,
        apiKeyEnv: "LAMBDA01_KEY",
        model: "qwen3-coder",
        models: { "qwen3-coder": { contextWindow: 65536 }, "gpt-oss-120b": {} },
      },
      lambda02: { baseUrl: b.url, apiKeyEnv: "LAMBDA02_KEY" },
    },
  };
}

const modelOf = (request: { body: unknown } | undefined) =>
  (request?.body as { model?: string } | undefined)?.model;

const chat = (stub: StubEndpoint) => stub.requests.filter((r) => r.path.endsWith("/completions"));

test("-e NAME sends to that endpoint with its own key and default model, its models' settings apply, and no key is ever shown", async () => {
  const a = await startStubEndpoint({
    scripts: [openaiToolCall({ name: "bash", args: { command: "env" } }), openaiText("done")],
  });
  const b = await startStubEndpoint({ scripts: [] });
  const box = makeSandbox();
  writeConfig(box.env.XDG_CONFIG_HOME as string, endpointsConfig(a, b));
  const result = await runNex(
    ["run", "-e", "lambda01", "--yes", "--json", "--data-dir", box.dataDir, "show env"],
    {
      cwd: box.workspace,
      env: { ...box.env, LAMBDA01_KEY: KEY_A, LAMBDA02_KEY: KEY_B, OPENAI_BASE_URL: b.url },
    },
  );
  await a.close();
  await b.close();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(
    chat(b).length,
    0,
    "the provider's base URL variable does not move a named endpoint",
  );
  const [first, second] = chat(a);
  assert.equal(first?.headers.authorization, `Bearer ${KEY_A}`);
  assert.equal(modelOf(first), "qwen3-coder");
  assert.match(result.stdout, /"contextWindow":65536/, "the endpoint's own model settings apply");
  for (const text of [result.stdout, result.stderr, second?.rawBody ?? ""]) {
    assert.ok(!text.includes(KEY_A) && !text.includes(KEY_B), "no key in output or history");
  }
});

test("NAME:model picks the endpoint; a colon that names no endpoint is part of the model's name", async () => {
  const a = await startStubEndpoint({ scripts: [openaiText("from a")] });
  const b = await startStubEndpoint({ scripts: [openaiText("from b")] });
  const box = makeSandbox();
  writeConfig(box.env.XDG_CONFIG_HOME as string, endpointsConfig(a, b));
  const env = { ...box.env, LAMBDA01_KEY: KEY_A, LAMBDA02_KEY: KEY_B, OPENAI_BASE_URL: b.url };
  const picked = await runNex(
    ["run", "--model", "lambda01:gpt-oss-120b", "--data-dir", box.dataDir, "hi"],
    { cwd: box.workspace, env },
  );
  assert.equal(picked.code, 0, picked.stderr);
  assert.equal(modelOf(chat(a)[0]), "gpt-oss-120b");
  const ollama = await runNex(["run", "--model", "qwen3:0.6b", "--data-dir", box.dataDir, "hi"], {
    cwd: box.workspace,
    env,
  });
  await a.close();
  await b.close();
  assert.equal(ollama.code, 0, ollama.stderr);
  assert.equal(modelOf(chat(b)[0]), "qwen3:0.6b");
});

test("an endpoint the config does not name is refused with the names it does", async () => {
  const a = await startStubEndpoint({ scripts: [] });
  const box = makeSandbox();
  writeConfig(box.env.XDG_CONFIG_HOME as string, endpointsConfig(a, a));
  const result = await runNex(["run", "-e", "lambda99", "--data-dir", box.dataDir, "hi"], {
    cwd: box.workspace,
    env: box.env,
  });
  await a.close();
  assert.equal(result.code, 3);
  assert.match(
    result.stderr,
    /No endpoint named "lambda99"\. The config names: lambda01, lambda02\./,
  );
  assert.equal(a.requests.length, 0);
});

test("nex chat: /model offers the endpoint's models in a picker and refuses one it does not serve", async (t) => {
  const nex = await startNexTui([openaiText("still here")], {
    args: ["-e", "lab"],
    // The harness points --base-url at its stub; the endpoint's config lists what it serves.
    seed: async ({ dataDir }) =>
      writeConfig(join(dataDir, "..", "..", "config"), {
        endpoints: { lab: { baseUrl: "http://127.0.0.1:9/v1", models: { m: {}, other: {} } } },
      }),
  });
  t.after(() => nex.close());
  const send = async (text: string, until: RegExp) => {
    await typeAndSubmit(nex.pty, text);
    return nex.pty.waitFor(until);
  };
  const listed = await send("/model", /Choose a model/);
  assert.match(listed, /m \(in use\)/);
  assert.match(listed, /^\W*other\s*\W*$/m);
  nex.pty.write(keys.esc);
  await nex.pty.waitFor(/Model unchanged: still m\./);
  const screen = await send("/model not-served-here", /Model not switched/);
  assert.match(screen.replace(/\s+/g, " "), /does not serve not-served-here; still using m/);
  await send("hello", /still here/);
  assert.equal(modelOf(nex.chatRequests()[0]), "m");
});

test("every endpoint's key variable is kept from commands and scrubbed, not only the one in use", async () => {
  const { resolveConfig } = await import("../../src/runtime/config/config.ts");
  const { sessionScrubber, toolEnvironment } = await import(
    "../../src/runtime/secrets/session-secrets.ts"
  );
  const box = makeSandbox();
  writeConfig(box.env.XDG_CONFIG_HOME as string, {
    endpoints: {
      lambda01: { baseUrl: "http://10.0.0.1:8000/v1", apiKeyEnv: "LAMBDA01_KEY" },
      lambda02: { baseUrl: "http://10.0.0.2:8000/v1", apiKeyEnv: "LAMBDA02_KEY" },
    },
  });
  const env = { ...box.env, LAMBDA01_KEY: KEY_A, LAMBDA02_KEY: KEY_B };
  const config = resolveConfig({ endpoint: "lambda01" }, env, box.workspace);
  assert.equal(config.apiKey, KEY_A);
  const commands = toolEnvironment(env, config);
  assert.equal(commands.LAMBDA01_KEY, undefined);
  assert.equal(commands.LAMBDA02_KEY, undefined);
  const scrubbed = sessionScrubber(config, env).scrub(`a ${KEY_A} b ${KEY_B}`).text;
  assert.ok(!scrubbed.includes(KEY_A) && !scrubbed.includes(KEY_B), scrubbed);
});
