// The real `nex chat` in a pseudo-terminal with a real MCP server: /mcp shows the server, and an MCP
// tool asks before it runs in ask mode.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { everythingServer, writeMcpConfig } from "../support/mcp-servers.ts";
import { scratchDir } from "../support/scratch-dir.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { startNexTui } from "../tui/cli-harness.ts";
import { answerPrompt, idleShown, typeAndSubmit } from "../tui/tui-harness.ts";

test("nex chat: /mcp shows each server's state and tools; an MCP tool asks first in ask mode, then runs", async (t) => {
  const config = writeMcpConfig(join(scratchDir("nex-mcp-chat-"), "mcp.json"), {
    everything: everythingServer(),
  });
  const nex = await startNexTui(
    [
      openaiToolCall({ name: "mcp__everything__echo", args: { message: "from the chat" } }),
      openaiText("Echoed."),
    ],
    { args: ["--mcp-config", config] },
  );
  t.after(() => nex.close());
  await typeAndSubmit(nex.pty, "/mcp");
  const listed = await nex.pty.waitFor(/tools: echo, /);
  assert.match(listed, /everything {2}connected {2}stdio/);
  await typeAndSubmit(nex.pty, "echo something");
  await nex.pty.waitFor("Allow mcp__everything__echo?");
  await answerPrompt(nex.pty, "y");
  await nex.pty.waitFor("Echoed.");
  await nex.pty.waitUntil(idleShown, "idle prompt");
  const requests = nex.chatRequests();
  assert.equal(requests.length, 2);
  assert.match(JSON.stringify(requests[1]?.body), /Echo: from the chat/);
});
