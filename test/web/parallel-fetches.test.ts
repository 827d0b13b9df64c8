// Fetches of one turn run side by side: a server that answers only once it holds three requests at
// once sees all three together (one after another, it would hold the first alone).
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCalls } from "../support/stub-scripts.ts";

/** A page server that holds requests until `together` are in flight (or `patienceMs` passed). */
async function gatheringServer(together: number, patienceMs: number) {
  const waiting: ServerResponse[] = [];
  let inFlight = 0;
  let most = 0;
  const answerAll = () => {
    for (const res of waiting.splice(0)) {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(`page ${res.req.url}\n`);
    }
  };
  const server = createServer((_req, res) => {
    inFlight++;
    most = Math.max(most, inFlight);
    res.on("close", () => {
      inFlight--;
    });
    waiting.push(res);
    if (waiting.length >= together) answerAll();
    else setTimeout(answerAll, patienceMs).unref();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    most: () => most,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

test("three web_fetch calls of one turn are in flight at once", { timeout: 120_000 }, async () => {
  // Fetched one at a time, each would wait here for the others: the patience is only that bound,
  // long enough for a loaded machine to start all three.
  const pages = await gatheringServer(3, 60_000);
  const box = makeSandbox();
  const configDir = join(box.env.XDG_CONFIG_HOME ?? "", "nex");
  mkdirSync(configDir, { recursive: true });
  writeFileSync(
    join(configDir, "config.json"),
    JSON.stringify({ web: { allowPrivateHosts: [`127.0.0.1:${pages.port}`] } }),
  );
  const url = (n: number) => `http://127.0.0.1:${pages.port}/${n}`;
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCalls([1, 2, 3].map((n) => ({ name: "web_fetch", args: { url: url(n) } }))),
      openaiText("Read all three."),
    ],
  });
  try {
    const result = await runNex(
      [
        "run",
        ...["--model", "stub-model", "--base-url", `${stub.url}/v1`, "--data-dir", box.dataDir],
        "--yes",
        "read the pages",
      ],
      { cwd: box.workspace, env: { ...box.env, OPENAI_API_KEY: "k" } },
    );
    assert.equal(result.code, 0, result.stderr);
    const last = stub.requests.at(-1)?.rawBody ?? "";
    for (const n of [1, 2, 3]) assert.match(last, new RegExp(`page /${n}`));
    assert.equal(pages.most(), 3);
  } finally {
    await stub.close();
    await pages.close();
  }
});
