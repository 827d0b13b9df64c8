// The real `nex run` against the stub endpoint, calling tools of real MCP servers from the registry.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { toolResults } from "../faults/scenario.ts";
import { makeSandbox, runNex } from "../support/cli.ts";
import { everythingServer, runArgs, writeMcpConfig } from "../support/mcp-servers.ts";
import { type LoggedRequest, startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall, type Script, status } from "../support/stub-scripts.ts";

/** Plays the model from a list of answers, one per model request (discovery probes get a 404). */
function model(answers: Script[], final = "done"): (request: LoggedRequest) => Script {
  let turn = 0;
  return (request) => {
    if (!request.path.endsWith("/chat/completions")) return status(404);
    return answers[turn++] ?? openaiText(final);
  };
}

const chat = (requests: LoggedRequest[]) =>
  requests.filter((r) => r.path.endsWith("/chat/completions"));

test("nex run lists the everything server's tools as mcp__everything__* and runs echo on --yes", async () => {
  const box = makeSandbox();
  const config = writeMcpConfig(join(box.workspace, "..", "mcp.json"), {
    everything: everythingServer(),
  });
  const stub = await startStubEndpoint({
    handler: model([
      openaiToolCall({ name: "mcp__everything__echo", args: { message: "hello from nex" } }),
    ]),
  });
  try {
    const result = await runNex(
      runArgs(stub.url, box.dataDir, "--yes", "--mcp-config", config, "say hi"),
      {
        cwd: box.workspace,
        env: box.env,
      },
    );
    assert.equal(result.code, 0, result.stderr);
    const requests = chat(stub.requests);
    const tools = (
      ((requests[0]?.body ?? {}) as { tools?: { function: { name: string } }[] }).tools ?? []
    ).map((tool) => tool.function.name);
    assert.ok(tools.includes("mcp__everything__echo"), tools.join(", "));
    assert.ok(tools.includes("read_file"));
    const results = toolResults(requests[1]);
    assert.match(results[0] ?? "", /Echo: hello from nex/);
  } finally {
    await stub.close();
  }
});
