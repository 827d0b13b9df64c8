// The note about a filling context, through the real `nex run` against the stub endpoint: past about
// 70% of the window the request ends with it; below, nothing is added; it is never journaled.
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText } from "../support/stub-scripts.ts";

async function runWith(prompt: string) {
  const stub = await startStubEndpoint({ scripts: [openaiText("noted")] });
  const box = makeSandbox();
  const dir = join(box.env.XDG_CONFIG_HOME as string, "nex");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({ models: { "stub-model": { contextWindow: 16_384, maxOutput: 1024 } } }),
  );
  const result = await runNex(
    [
      "run",
      "--model",
      "stub-model",
      "--base-url",
      `${stub.url}/v1`,
      "--data-dir",
      box.dataDir,
      prompt,
    ],
    { cwd: box.workspace, env: { ...box.env, OPENAI_API_KEY: "k" } },
  );
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const body = stub.requestsTo("/v1/chat/completions")[0]?.body as {
    messages: { role: string; content: unknown }[];
  };
  const sessions = join(box.dataDir, "sessions");
  const journal = readdirSync(sessions)
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => readFileSync(join(sessions, name), "utf8"))
    .join("");
  return { body, journal };
}

test("context note: a request past 70% of the window ends with the note, which is not journaled", async () => {
  const words = "the quick brown fox jumps over the lazy dog and keeps running ".repeat(600);
  const { body, journal } = await runWith(`summarise this: ${words}`);
  const last = body.messages.at(-1);
  assert.equal(last?.role, "user");
  assert.match(
    String(JSON.stringify(last?.content)),
    /context is about \d+% full[\s\S]*finish the step you are on/,
  );
  assert.match(journal, /summarise this/);
  assert.doesNotMatch(journal, /context is about/);
});

test("context note: a small request carries no note (the fixed prompt does not grow)", async () => {
  const { body } = await runWith("say hello");
  assert.doesNotMatch(JSON.stringify(body.messages), /context is about/);
  assert.match(JSON.stringify(body.messages.at(-1)), /say hello/);
});
