// Adversarial review of `@path` and command files: what they bring into the prompt is as untrusted as
// what a tool reads, and reads nothing nex keeps for itself.
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex, type Sandbox } from "../support/cli.ts";
import { type LoggedRequest, startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, type Script, status } from "../support/stub-scripts.ts";

const KEY = "sk-proj-At7vN3xW7kR2mP5tY9bL4cF6hJ1gD0sA3eU8iO1";

function put(box: Sandbox, path: string, text: string): void {
  mkdirSync(dirname(join(box.workspace, path)), { recursive: true });
  writeFileSync(join(box.workspace, path), text);
}

function model(answers: Script[]): (request: LoggedRequest) => Script {
  let turn = 0;
  return (request) => {
    if (!request.path.endsWith("/chat/completions")) return status(404);
    return answers[turn++] ?? openaiText("done");
  };
}

function filesUnder(dir: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push({ path, text: readFileSync(path, "latin1") });
  }
  return out;
}

async function run(box: Sandbox, prompt: string, extra: Record<string, string> = {}) {
  const stub = await startStubEndpoint({ handler: model([openaiText("ok")]) });
  const result = await runNex(
    [
      "run",
      "--yes",
      "--json",
      "--model",
      "stub-model",
      "--base-url",
      `${stub.url}/v1`,
      "--data-dir",
      box.dataDir,
      prompt,
    ],
    { cwd: box.workspace, env: { ...box.env, OPENAI_API_KEY: KEY, ...extra } },
  );
  await stub.close();
  return { result, requests: stub.requestsTo("/v1/chat/completions") };
}

test("@.env and a command file that cats it give the model, --json and the journal the key's name only", async () => {
  const box = makeSandbox();
  put(box, ".env", `OPENAI_API_KEY=${KEY}\n`);
  put(box, ".claude/commands/env.md", "Check the settings:\n!cat .env\n");
  const approved = await runNex(["commands", "approve", "env"], {
    cwd: box.workspace,
    env: box.env,
  });
  assert.equal(approved.code, 0, approved.stdout);
  for (const prompt of ["what is in @.env?", "/env"]) {
    const { result, requests } = await run(box, prompt);
    assert.equal(result.code, 0, result.stderr);
    const sent = requests.map((r) => r.rawBody).join("\n");
    assert.ok(sent.includes("OPENAI_API_KEY=[redacted: OPENAI_API_KEY]"), `${prompt}: attached`);
    assert.ok(!sent.includes(KEY), `${prompt}: no request holds the key`);
    assert.ok(!result.stdout.includes(KEY), `${prompt}: --json holds no key`);
  }
  for (const file of filesUnder(box.dataDir))
    assert.ok(!file.text.includes(KEY), `${file.path} holds no key`);
});
