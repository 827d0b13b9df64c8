// The tool definitions a run sends are part of every request's fixed cost and of the server's prompt
// cache: moving where a tool's code lives (loaded at its first call) must not change a byte of them.
// The recorded lists were taken from a run before tools loaded lazily; `NEX_RECORD_SENT_TOOLS=1`
// records them again after a deliberate change of a tool's name, description or schema.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText } from "../support/stub-scripts.ts";

const recorded = (name: string) => join(import.meta.dirname, "sent-tools", `${name}.json`);

/** The `tools` of the first request (as JSON) of a one-answer run on a model with `window` tokens. */
async function toolsSent(window: number, env: Record<string, string>): Promise<string> {
  const stub = await startStubEndpoint({ scripts: [openaiText("hello")] });
  const box = makeSandbox();
  const dir = join(box.env.XDG_CONFIG_HOME as string, "nex");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({ models: { m: { contextWindow: window, maxOutput: 1024 } } }),
  );
  const result = await runNex(["run", "--base-url", `${stub.url}/v1`, "--model", "m", "hi"], {
    cwd: box.workspace,
    env: { ...box.env, OPENAI_API_KEY: "sk-sent", ...env },
  });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const [first] = stub.requestsTo("/v1/chat/completions");
  assert.ok(first, "the run made no request");
  return JSON.stringify((first.body as { tools?: unknown }).tools);
}

for (const [name, window, env] of [
  ["window-32k", 32_768, {}],
  ["window-128k-web", 131_072, { SEARXNG_URL: "http://127.0.0.1:9" }],
] as const)
  test(`the tools a run sends (${name}) are byte for byte the recorded ones`, async () => {
    const sent = await toolsSent(window, env);
    if (process.env.NEX_RECORD_SENT_TOOLS === "1") writeFileSync(recorded(name), sent);
    // The file is kept formatted; written compactly again, it is what the wire carries.
    assert.equal(sent, JSON.stringify(JSON.parse(readFileSync(recorded(name), "utf8"))));
  });
