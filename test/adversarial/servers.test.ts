// An endpoint that is down when nex starts: said once, with its address, whatever else was given.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";

/** A local port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  assert.ok(address && typeof address === "object");
  return address.port;
}

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
