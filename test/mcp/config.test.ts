// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these tests write ${VAR} as users do in their config
// Where MCP servers come from and what the user is told: a project's .mcp.json only after approval,
// --mcp-config, the config file, `nex mcp` to manage them, and clear errors for a bad entry.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { everythingServer, largeWindow, runArgs, writeMcpConfig } from "../support/mcp-servers.ts";
import { type LoggedRequest, startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, status } from "../support/stub-scripts.ts";

const answer = (request: LoggedRequest) =>
  request.path.endsWith("/chat/completions") ? openaiText("ok") : status(404);

function offered(requests: LoggedRequest[]): string[] {
  const first = requests.find((r) => r.path.endsWith("/chat/completions"));
  const body = (first?.body ?? {}) as { tools?: { function: { name: string } }[] };
  return (body.tools ?? []).map((tool) => tool.function.name);
}

async function run(box: ReturnType<typeof makeSandbox>, args: string[] = []) {
  const stub = await startStubEndpoint({ routes: largeWindow, handler: answer });
  try {
    const result = await runNex(runArgs(stub.url, box.dataDir, ...args, "go"), {
      cwd: box.workspace,
      env: box.env,
    });
    return { ...result, tools: offered(stub.requests) };
  } finally {
    await stub.close();
  }
}

const nex = (
  box: ReturnType<typeof makeSandbox>,
  args: string[],
  env: Record<string, string> = {},
) =>
  runNex([...args, "--data-dir", box.dataDir], { cwd: box.workspace, env: { ...box.env, ...env } });

test("a project's .mcp.json starts nothing until approved; nex mcp approve starts it from then on; a changed file asks again", async () => {
  const box = makeSandbox();
  const projectFile = writeMcpConfig(join(box.workspace, ".mcp.json"), {
    everything: everythingServer(),
  });
  const before = await run(box);
  assert.equal(before.code, 0, before.stderr);
  assert.ok(!before.tools.some((name) => name.startsWith("mcp__")), before.tools.join(","));
  assert.match(before.stderr, /\.mcp\.json defines MCP server everything, not started/);
  assert.match(before.stderr, /nex mcp approve/);

  const approved = await nex(box, ["mcp", "approve"]);
  assert.equal(approved.code, 0, approved.stderr);
  assert.match(approved.stdout, /everything: .*server-everything/);
  const after = await run(box);
  assert.ok(after.tools.includes("mcp__everything__echo"), after.stderr);

  writeFileSync(projectFile, readFileSync(projectFile, "utf8").replace("stdio", "stdio "));
  const changed = await run(box);
  assert.ok(!changed.tools.some((name) => name.startsWith("mcp__")));
  assert.match(changed.stderr, /changed since you approved it/);
});

test("--mcp-config .mcp.json starts a project's servers without approval, headless", async () => {
  const box = makeSandbox();
  writeMcpConfig(join(box.workspace, ".mcp.json"), { everything: everythingServer() });
  const result = await run(box, ["--mcp-config", ".mcp.json"]);
  assert.ok(result.tools.includes("mcp__everything__echo"), result.stderr);
  assert.doesNotMatch(result.stderr, /not started/);
});

test("bad MCP config is a clear error naming the file and the entry (exit 3)", async () => {
  const box = makeSandbox();
  const cases: [object, RegExp][] = [
    [{ mcpServers: [] }, /`mcpServers` must be an object/],
    [
      { mcpServers: { db: { comand: "x" } } },
      /MCP server "db" needs "command": .*\("comand" is not a key: did you mean "command"\?\)/,
    ],
    [
      { mcpServers: { db: { type: "websocket", url: "ws://x" } } },
      /"type": "websocket"; use "stdio"/,
    ],
    [{ mcpServers: { "a b": { command: "x" } } }, /a server name may use only letters/],
    [
      { mcpServers: { r: { type: "http", url: "https://u:p@example.com/mcp" } } },
      /must not hold credentials/,
    ],
  ];
  for (const [config, message] of cases) {
    const file = writeMcpConfig(join(box.workspace, "..", "bad.json"), {});
    writeFileSync(file, JSON.stringify(config));
    const result = await run(box, ["--mcp-config", file]);
    assert.equal(result.code, 3, result.stderr);
    assert.match(result.stderr, message);
    assert.match(result.stderr, /bad\.json/);
  }
  const missing = await run(box, ["--mcp-config", "nope.json"]);
  assert.equal(missing.code, 3);
  assert.match(missing.stderr, /does not exist/);
});

test("keys of other tools in a shared .mcp.json are notices, not failures: disabled is honoured, autoApprove grants nothing", async () => {
  const box = makeSandbox();
  const file = join(box.workspace, "..", "shared.json");
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        everything: { ...everythingServer(), autoApprove: ["echo"], timeout: 60 },
        off: { command: "no-such-program-nex-test", disabled: true },
      },
    }),
  );
  const result = await run(box, ["--mcp-config", file]);
  assert.equal(result.code, 0, result.stderr);
  assert.ok(result.tools.includes("mcp__everything__echo"), result.stderr);
  assert.match(result.stderr, /MCP server "off" is disabled \("disabled": true\) and not started/);
  assert.match(result.stderr, /"autoApprove" ignored: nex asks before a tool runs/);
  assert.match(result.stderr, /unknown key "timeout" ignored/);
  assert.doesNotMatch(result.stderr, /no-such-program/);
});

test("an unset ${VAR} keeps only that server from starting, named by field and variable", async () => {
  const box = makeSandbox();
  const file = writeMcpConfig(join(box.workspace, "..", "mcp.json"), {
    needs: { ...everythingServer(), env: { TOKEN: "${NOT_SET_ANYWHERE}" } },
    fine: everythingServer(),
  });
  const result = await run(box, ["--mcp-config", file]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stderr,
    /MCP server needs .* was not started: \$\{NOT_SET_ANYWHERE\} in env\.TOKEN is not set/,
  );
  assert.ok(result.tools.includes("mcp__fine__echo"));
  assert.ok(!result.tools.some((name) => name.startsWith("mcp__needs__")));
});

test("nex mcp add, list, test and remove manage the config file; values of env and headers are never printed", async () => {
  const box = makeSandbox();
  const server = everythingServer() as { command: string; args: string[] };
  const add = await nex(box, [
    "mcp",
    "add",
    "ev",
    "--env",
    "API_TOKEN=${EV_TOKEN}",
    "--",
    server.command,
    ...server.args,
  ]);
  assert.equal(add.code, 0, add.stderr);
  const configPath = join(box.env.XDG_CONFIG_HOME ?? "", "nex", "config.json");
  assert.equal(statSync(configPath).mode & 0o777, 0o600);
  const secret = "ev-token-value-9f8e7d6c5b4a";
  const list = await nex(box, ["mcp", "list"], { EV_TOKEN: secret });
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /ev {2}connected {2}stdio/);
  assert.match(list.stdout, /tools: echo, /);
  assert.ok(!list.stdout.includes(secret) && !list.stderr.includes(secret));
  const listed = await nex(box, ["mcp", "list", "--json"], { EV_TOKEN: secret });
  assert.equal(listed.code, 0, listed.stderr);
  const rows = JSON.parse(listed.stdout) as { name: string; state: string; tools: string[] }[];
  assert.deepEqual(
    rows.map((row) => [row.name, row.state]),
    [["ev", "connected"]],
  );
  assert.ok(rows[0]?.tools.includes("echo"));
  assert.ok(!listed.stdout.includes(secret));

  const remote = await nex(box, [
    "mcp",
    "add",
    "api",
    "https://mcp.example.com/mcp",
    "--header",
    "Authorization: Bearer ${API_KEY}",
  ]);
  assert.equal(remote.code, 0, remote.stderr);
  const saved = JSON.parse(readFileSync(configPath, "utf8")) as {
    mcpServers: Record<string, unknown>;
  };
  assert.deepEqual(saved.mcpServers.api, {
    type: "http",
    url: "https://mcp.example.com/mcp",
    headers: { Authorization: "Bearer ${API_KEY}" },
  });
  const removed = await nex(box, ["mcp", "remove", "api"]);
  assert.equal(removed.code, 0, removed.stderr);
  const gone = await nex(box, ["mcp", "remove", "api"]);
  assert.equal(gone.code, 3);
  assert.match(gone.stderr, /No MCP server named api/);

  mkdirSync(join(box.workspace, "bin"));
  const broken = await nex(box, [
    "mcp",
    "add",
    "broken",
    "--",
    join(box.workspace, "bin", "missing-server"),
  ]);
  assert.equal(broken.code, 0);
  const tested = await nex(box, ["mcp", "test", "broken"]);
  assert.equal(tested.code, 1, tested.stdout);
  assert.match(tested.stdout, /broken {2}failed/);
  assert.match(tested.stdout, /was not found/);
});
