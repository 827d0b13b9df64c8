// Refused fetches of private addresses under --yes, through the real CLI: three different ones are
// a model trying, not looping; the same one three times stops the run with the fix that applies.
import assert from "node:assert/strict";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall, type Script } from "../support/stub-scripts.ts";

async function run(scripts: Script[]) {
  const box = makeSandbox();
  const stub = await startStubEndpoint({ scripts });
  try {
    return await runNex(
      [
        "run",
        ...["--model", "stub-model", "--base-url", `${stub.url}/v1`, "--data-dir", box.dataDir],
        "--yes",
        "fetch them",
      ],
      { cwd: box.workspace, env: { ...box.env, OPENAI_API_KEY: "k" } },
    );
  } finally {
    await stub.close();
  }
}

const fetch = (url: string) => openaiToolCall({ name: "web_fetch", args: { url } });

test("three different private URLs refused under --yes do not end the run", async () => {
  const result = await run([
    fetch("http://10.0.0.1/a"),
    fetch("http://10.0.0.2/b"),
    fetch("http://192.168.1.1/c"),
    openaiText("Those are private; I could not read them."),
  ]);
  assert.equal(result.code, 4, result.stderr);
  assert.doesNotMatch(result.stderr, /Stopped: the model's web_fetch call was denied/);
  assert.match(result.stdout, /I could not read them/);
});

test("the same private URL refused three times under --yes stops with allowPrivateHosts, never --yes or --mode", async () => {
  const result = await run([
    fetch("http://10.0.0.1/a"),
    fetch("http://10.0.0.1/a"),
    fetch("http://10.0.0.1/a"),
    openaiText("never reached"),
  ]);
  assert.equal(result.code, 1, result.stderr);
  const stop = result.stderr.split("\n").find((line) => line.includes("Stopped:")) ?? "";
  assert.match(stop, /web_fetch call was denied 3 turns in a row/);
  assert.match(stop, /allowPrivateHosts/);
  assert.doesNotMatch(stop, /--yes|--mode/);
});
