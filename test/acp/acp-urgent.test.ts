// An urgent prompt (`_meta.urgent`) through the real `nex acp`: it cancels the running prompt, which
// answers `cancelled`, and is answered at once; an ordinary one is still refused while one runs.
import assert from "node:assert/strict";
import { test } from "node:test";
import { makeSandbox } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText } from "../support/stub-scripts.ts";
import { agentText, startAcp } from "./acp-client.ts";

test("session/prompt with _meta.urgent cancels the running prompt and runs at once", async () => {
  const stub = await startStubEndpoint({
    scripts: [
      openaiText("Working on it, step one of many", {
        finishReason: null,
        includeDone: false,
        end: "hang",
      }),
      openaiText("Stopped; the build comes first."),
    ],
  });
  const box = makeSandbox();
  const run = startAcp({
    cwd: box.workspace,
    env: { ...box.env, OPENAI_API_KEY: "k" },
    args: ["--model", "stub-model", "--base-url", `${stub.url}/v1`, "--data-dir", box.dataDir],
  });
  try {
    await run.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await run.agent.request("session/new", {
      cwd: box.workspace,
      mcpServers: [],
    });
    const first = run.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "a long task" }],
    });
    await run.waitForUpdate((n) => n.update.sessionUpdate === "agent_message_chunk");
    await assert.rejects(
      run.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "an ordinary one" }],
      }),
      /already running[\s\S]*_meta\.urgent/,
    );
    const urgent = await run.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "stop, the build is red" }],
      _meta: { urgent: true },
    });
    assert.equal((await first).stopReason, "cancelled");
    assert.equal(urgent.stopReason, "end_turn");
    assert.match(agentText(run.updates), /Stopped; the build comes first\./);
    const second = JSON.stringify(stub.requestsTo("/v1/chat/completions")[1]?.body);
    assert.match(second, /stop, the build is red/);
  } finally {
    await run.close();
    await stub.close();
  }
});
