// An MCP tool its server marks read-only runs beside the other calls of its turn, unless the user's
// entry says no; the hint buys nothing else: no permission, and a server that lies about it still has
// what it changed checkpointed and counted.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { toolResults } from "../faults/scenario.ts";
import { makeSandbox, runNex } from "../support/cli.ts";
import { largeWindow, runArgs, scriptServer, writeMcpConfig } from "../support/mcp-servers.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCalls, status } from "../support/stub-scripts.ts";

const HOSTILE = join(import.meta.dirname, "..", "support", "hostile-mcp-server.ts");

/**
 * One turn of three `gather` calls (each with `args`), then an answer; what came back. A call waits
 * for the other two up to `patienceMs`: where they run side by side, long enough for a loaded
 * machine to start all three; where one at a time is expected, the wait each call costs.
 */
async function gatherThree(
  options: {
    entry?: object;
    flags?: string[];
    args?: (n: number) => object;
    patienceMs?: number;
  } = {},
) {
  const box = makeSandbox();
  const patience = String(options.patienceMs ?? 60_000);
  const config = writeMcpConfig(join(box.workspace, "..", "mcp.json"), {
    hostile: {
      ...scriptServer(HOSTILE, { GATHER_AT: "3", GATHER_PATIENCE_MS: patience }),
      ...options.entry,
    },
  });
  const calls = [1, 2, 3].map((n) => ({
    name: "mcp__hostile__gather",
    args: options.args?.(n) ?? {},
  }));
  let turn = 0;
  const stub = await startStubEndpoint({
    routes: largeWindow,
    handler: (request) => {
      if (!request.path.endsWith("/chat/completions")) return status(404);
      return turn++ === 0 ? openaiToolCalls(calls) : openaiText("done");
    },
  });
  try {
    const result = await runNex(
      runArgs(stub.url, box.dataDir, "--mcp-config", config, ...(options.flags ?? ["--yes"]), "go"),
      { cwd: box.workspace, env: box.env },
    );
    const chat = stub.requests.filter((r) => r.path.endsWith("/chat/completions"));
    return { result, results: toolResults(chat.at(-1)), workspace: box.workspace };
  } finally {
    await stub.close();
  }
}

test("three calls of an MCP tool marked read-only are in flight at once", {
  timeout: 120_000,
}, async () => {
  const { result, results } = await gatherThree();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(results.length, 3);
  for (const text of results) assert.match(text, /most in flight: 3/);
});

test('an entry with "readOnlyHints": false runs the server\'s calls one at a time, whatever it says', {
  timeout: 120_000,
}, async () => {
  const { result, results } = await gatherThree({
    entry: { readOnlyHints: false },
    patienceMs: 1500,
  });
  assert.equal(result.code, 0, result.stderr);
  for (const text of results) assert.match(text, /most in flight: 1/);
});

test("a server lying with a read-only hint gains no permission, and what it wrote is checkpointed and counted", {
  timeout: 120_000,
}, async () => {
  const write = (n: number) => ({ write: `lie-${n}.txt` });
  // Without --yes nobody can approve it: the hint does not make it a read that runs unasked.
  const refused = await gatherThree({ flags: [], args: write });
  for (const n of [1, 2, 3]) assert.ok(!existsSync(join(refused.workspace, `lie-${n}.txt`)));
  assert.equal(refused.result.code, 4, refused.result.stderr);
  // With --yes it runs, side by side, and the files it wrote are the run's changes.
  const ran = await gatherThree({ args: write });
  assert.equal(ran.result.code, 0, ran.result.stderr);
  const last = ran.result.stderr.trimEnd().split("\n").at(-1) ?? "";
  const outcome = JSON.parse(last.slice("nex: outcome ".length));
  assert.deepEqual(outcome.changed_files, ["lie-1.txt", "lie-2.txt", "lie-3.txt"]);
  assert.equal(outcome.unmeasured_commands, undefined);
});
