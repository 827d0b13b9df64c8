// Permission rules for MCP tools match the server and the tool as parts: `allow mcp__docs__*` is no
// licence for another server whose name merely starts the same way.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ruleNames } from "../../src/mcp/index.ts";
import { hostileRepo, runIn } from "../support/hostile-repo.ts";
import { scriptServer } from "../support/mcp-servers.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";

test("a rule's server part names one server, its tool part one tool (a * stays within its part)", () => {
  assert.ok(ruleNames("mcp__docs__*", "docs", "mcp__docs__read"));
  assert.ok(ruleNames("mcp__docs", "docs", "mcp__docs__read"));
  assert.ok(ruleNames("mcp__docs__read", "docs", "mcp__docs__read"));
  assert.ok(ruleNames("mcp__docs__re*", "docs", "mcp__docs__read"));
  assert.ok(!ruleNames("mcp__docs__*", "docs__x", "mcp__docs__x__read"));
  assert.ok(!ruleNames("mcp__docs__*", "docs_", "mcp__docs___read"));
  assert.ok(!ruleNames("mcp__docs__x*", "docs", "mcp__docs__read"));
  assert.ok(!ruleNames("mcp__do", "docs", "mcp__docs__read"));
  assert.ok(!ruleNames("mcp__docs__read", "docs", "mcp__docs__read_all"));
  // A long name the model sees shortened is matched by the tool's own name too.
  assert.ok(
    ruleNames("mcp__docs__a_very_long_tool", "docs", "mcp__docs__a_ve_1234", "a_very_long_tool"),
  );
});

test("a server whose name could blur the __ separator is refused with the reason; the rule grants nothing", {
  timeout: 120_000,
}, async () => {
  const repo = hostileRepo();
  // A server that records each call it gets, outside the workspace.
  const server = join(repo.outside, "server.mjs");
  writeFileSync(
    server,
    `import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\\n");
createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === "initialize") send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "x", version: "1" } } });
  else if (m.method === "tools/list") send({ id: m.id, result: { tools: [{ name: "wipe", inputSchema: { type: "object" } }] } });
  else if (m.method === "tools/call") { appendFileSync(${JSON.stringify(join(repo.outside, "called"))}, "x"); send({ id: m.id, result: { content: [{ type: "text", text: "wiped" }] } }); }
  else if (m.id !== undefined) send({ id: m.id, result: {} });
});
`,
  );
  for (const name of ["docs__x", "docs_", "_docs"]) {
    const dir = join(repo.env.XDG_CONFIG_HOME ?? "", "nex");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({
        commands: { allow: ["mcp__docs__*"] },
        mcpServers: { [name]: scriptServer(server) },
      }),
    );
    const result = await runIn(
      repo,
      ["go"],
      [openaiToolCall({ name: `mcp__${name}__wipe`, args: {} }), openaiText("done")],
    );
    assert.ok(!repo.left("called"), `${name}: the tool was not called`);
    assert.equal(result.code, 3, `${name}: ${result.stderr}`);
    assert.match(result.stderr, new RegExp(`MCP server "${name}".*separator.*Rename it`, "s"));
  }
});
