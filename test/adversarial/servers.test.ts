// An endpoint that is down when nex starts: said once, with its address, whatever else was given.
import assert from "node:assert/strict";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { closedPort } from "../support/closed-port.ts";

for (const [label, extra] of [
  ["without --model", []],
  ["with --model", ["--model", "some-model"]],
] as const) {
  test(`an unreachable endpoint at start-up is named once, with its address (${label})`, async () => {
    const box = makeSandbox();
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const result = await runNex(
      ["run", ...extra, "--base-url", url, "--data-dir", box.dataDir, "hi"],
      {
        cwd: box.workspace,
        env: box.env,
      },
    );
    assert.equal(result.code, 3, result.stderr);
    const said = result.stderr.split(`The endpoint at ${url} is unreachable`).length - 1;
    assert.equal(said, 1, result.stderr);
    assert.match(result.stderr, /connection was refused/);
    assert.doesNotMatch(result.stderr, /No model given\. Pass|did not say|attempt|retry/);
  });
}

test("a server slow to answer nex's start-up questions is not called unreachable: the task runs", {
  timeout: 60_000,
}, async () => {
  const { hang, openaiText, startStubEndpoint } = await import("../support/stub-endpoint.ts");
  // Busy loading a model, say: /v1/models never answers, the chat request does.
  const stub = await startStubEndpoint({
    scripts: [openaiText("Done.")],
    routes: { "GET /v1/models": hang() },
  });
  const box = makeSandbox();
  const result = await runNex(
    ["run", "--model", "m", "--base-url", `${stub.url}/v1`, "--data-dir", box.dataDir, "hi"],
    { cwd: box.workspace, env: box.env },
  );
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.doesNotMatch(result.stderr, /unreachable/);
  assert.match(result.stdout, /Done\./);
});
