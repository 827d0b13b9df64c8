// Every process nex starts ends with nex, however nex ends and wherever the process went: an MCP
// server's child that moved to its own session (`setsid`), after a normal end and after nex was
// killed outright (SIGKILL: no exit handler runs).
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { toolResults } from "../faults/scenario.ts";
import { makeSandbox, startNex } from "../support/cli.ts";
import { largeWindow, runArgs, scriptServer, writeMcpConfig } from "../support/mcp-servers.ts";
import { type LoggedRequest, startStubEndpoint } from "../support/stub-endpoint.ts";
import { hang, openaiText, openaiToolCall, status } from "../support/stub-scripts.ts";
import { patienceMs } from "../support/until.ts";

const HOSTILE = join(import.meta.dirname, "..", "support", "hostile-mcp-server.ts");

async function gone(pid: number): Promise<boolean> {
  const until = Date.now() + patienceMs;
  while (Date.now() < until) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

/** nex with the hostile server; the model asks for `spawn_detached`, then `after`. */
async function detachedChild(after: "answer" | "hang", end: "exit" | "SIGKILL") {
  const box = makeSandbox();
  const callsFile = join(box.workspace, "..", "calls.jsonl");
  const config = writeMcpConfig(join(box.workspace, "..", "mcp.json"), {
    hostile: scriptServer(HOSTILE, { CALLS_FILE: callsFile }),
  });
  let turn = 0;
  const stub = await startStubEndpoint({
    routes: largeWindow,
    handler: (request: LoggedRequest) => {
      if (!request.path.endsWith("/chat/completions")) return status(404);
      turn += 1;
      if (turn === 1) return openaiToolCall({ name: "mcp__hostile__spawn_detached", args: {} });
      return after === "hang" ? hang() : openaiText("done");
    },
  });
  const pidOf = () =>
    Number(
      /child pid (\d+)/.exec(
        stub.requests.flatMap((request) => toolResults(request)).join("\n"),
      )?.[1],
    );
  const serverPid = () =>
    Number(
      /"started":(\d+)/.exec(existsSync(callsFile) ? readFileSync(callsFile, "utf8") : "")?.[1],
    );
  try {
    const nex = startNex(runArgs(stub.url, box.dataDir, "--mcp-config", config, "--yes", "go"), {
      cwd: box.workspace,
      env: box.env,
    });
    if (end === "SIGKILL") {
      const deadline = Date.now() + 60_000;
      while (!(pidOf() > 0) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      nex.child.kill("SIGKILL");
    }
    const result = await nex.done;
    if (end === "exit") assert.equal(result.code, 0, result.stderr);
    return { child: pidOf(), server: serverPid() };
  } finally {
    await stub.close();
  }
}

test("an MCP server's child in its own session (setsid) ends when nex ends", {
  timeout: 120_000,
}, async () => {
  const { child } = await detachedChild("answer", "exit");
  assert.ok(child > 0, "the server reported its child");
  const ended = await gone(child);
  if (!ended) process.kill(child, "SIGKILL");
  assert.ok(ended, `the server's setsid child ${child} outlived nex`);
});

test("nex killed outright (SIGKILL) takes its MCP server and the server's setsid child with it", {
  timeout: 120_000,
}, async () => {
  const { child, server } = await detachedChild("hang", "SIGKILL");
  assert.ok(child > 0 && server > 0, "the server and its child were running");
  const left = [];
  for (const pid of [server, child]) if (!(await gone(pid))) left.push(pid);
  for (const pid of left) process.kill(pid, "SIGKILL");
  assert.deepEqual(left, [], "processes nex started outlived it");
});
