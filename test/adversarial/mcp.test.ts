// MCP servers that misbehave (die mid-call, hang, flood, lie about their output, declare schemas that
// do not compile, print garbage, change their tool list), run under the real `nex run`: what the
// model is told is what happened, a lost call is never replayed blindly, and nex itself goes on.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { toolResults } from "../faults/scenario.ts";
import { makeSandbox, runNex, startNex } from "../support/cli.ts";
import { largeWindow, runArgs, scriptServer, writeMcpConfig } from "../support/mcp-servers.ts";
import { waitForPidFile } from "../support/processes.ts";
import { type LoggedRequest, startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall, type Script, status } from "../support/stub-scripts.ts";
import { patienceMs } from "../support/until.ts";

const HOSTILE = join(import.meta.dirname, "..", "support", "hostile-mcp-server.ts");

function model(answers: Script[], final = "done"): (request: LoggedRequest) => Script {
  let turn = 0;
  return (request) => {
    if (!request.path.endsWith("/chat/completions")) return status(404);
    return answers[turn++] ?? openaiText(final);
  };
}

const call = (tool: string, args: object = {}) =>
  openaiToolCall({ name: `mcp__hostile__${tool}`, args });

const chat = (requests: LoggedRequest[]) =>
  requests.filter((r) => r.path.endsWith("/chat/completions"));

function toolNames(request: LoggedRequest | undefined): string[] {
  const body = (request?.body ?? {}) as { tools?: { function: { name: string } }[] };
  return (body.tools ?? []).map((tool) => tool.function.name);
}

interface HostileRun {
  code: number | null;
  stderr: string;
  stdout: string;
  /** The tool results the model got, in order. */
  results: string[];
  requests: LoggedRequest[];
  /** What the server received: calls and cancellations. */
  received: { call?: string; cancelled?: unknown; started?: number }[];
  dataDir: string;
}

async function runHostile(
  answers: Script[],
  options: {
    env?: Record<string, string>;
    server?: Record<string, unknown>;
    extraArgs?: string[];
    config?: object;
    /** More of nex's own environment. */
    nexEnv?: Record<string, string>;
  } = {},
): Promise<HostileRun> {
  const box = makeSandbox();
  const callsFile = join(box.workspace, "..", "calls.jsonl");
  const config = writeMcpConfig(join(box.workspace, "..", "mcp.json"), {
    hostile: {
      ...scriptServer(HOSTILE, { CALLS_FILE: callsFile, ...options.env }),
      ...options.server,
    },
  });
  if (options.config) {
    const { mkdirSync, writeFileSync } = await import("node:fs");
    mkdirSync(join(box.env.XDG_CONFIG_HOME ?? "", "nex"), { recursive: true });
    writeFileSync(
      join(box.env.XDG_CONFIG_HOME ?? "", "nex", "config.json"),
      JSON.stringify(options.config),
    );
  }
  const stub = await startStubEndpoint({ routes: largeWindow, handler: model(answers) });
  try {
    const result = await runNex(
      runArgs(
        stub.url,
        box.dataDir,
        "--mcp-config",
        config,
        ...(options.extraArgs ?? ["--yes"]),
        "go",
      ),
      { cwd: box.workspace, env: { ...box.env, ...options.nexEnv } },
    );
    const requests = chat(stub.requests);
    const last = requests[requests.length - 1];
    const received = existsSync(callsFile)
      ? readFileSync(callsFile, "utf8")
          .trim()
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as HostileRun["received"][number])
      : [];
    return {
      code: result.code,
      stderr: result.stderr,
      stdout: result.stdout,
      results: toolResults(last),
      requests,
      received,
      dataDir: box.dataDir,
    };
  } finally {
    await stub.close();
  }
}

test("a server that dies mid-call: the model is told the outcome is unknown, with the exit and stderr; the call is not re-sent, and the next call restarts the server", async () => {
  const run = await runHostile([call("crash"), call("add", { a: 2, b: 3 })]);
  assert.equal(run.code, 0, run.stderr);
  const [crashed, after] = run.results;
  assert.match(crashed ?? "", /outcome unknown: it may or may not have happened/);
  assert.match(crashed ?? "", /exit status 7/);
  assert.match(crashed ?? "", /panic: connection pool exhausted/);
  assert.match(crashed ?? "", /nex did not send it again/);
  assert.match(after ?? "", /restarted it \(restart 1 of 3\)/);
  assert.match(after ?? "", /\n5$/);
  assert.deepEqual(
    run.received.filter((entry) => entry.call).map((entry) => entry.call),
    ["crash", "add"],
  );
});

test("a tool the server marks idempotent is re-sent once after an unknown outcome, and never more", async () => {
  const run = await runHostile([call("crash_idempotent")]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.results[0] ?? "", /marks crash_idempotent idempotent, so nex sent it once more/);
  assert.match(run.results[0] ?? "", /outcome unknown/);
  assert.equal(run.received.filter((entry) => entry.call === "crash_idempotent").length, 2);
});

test("a call that never answers times out as unknown and the server is told to cancel it", async () => {
  const run = await runHostile([call("hang")], { server: { timeoutSeconds: 2 } });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.results[0] ?? "", /did not answer within 2 s/);
  assert.match(run.results[0] ?? "", /outcome unknown/);
  assert.ok(
    run.received.some((entry) => entry.cancelled !== undefined),
    JSON.stringify(run.received),
  );
});

test("a server repeating the same progress does not hold a call past its no-progress timeout", async () => {
  const run = await runHostile([call("stuck_progress")], { server: { timeoutSeconds: 2 } });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.results[0] ?? "", /did not answer within 2 s/);
  assert.match(run.results[0] ?? "", /repeated progress value does not count/);
  assert.ok(run.received.some((entry) => entry.cancelled !== undefined));
});

test("advancing progress never holds a call past the configured total limit", async () => {
  const run = await runHostile([call("endless_progress")], {
    // The no-progress timeout as long as the total: progress every 100 ms from a starved server may
    // pause for a second or more, and only the total limit is under test.
    server: { timeoutSeconds: 5, totalTimeoutSeconds: 5 },
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.results[0] ?? "", /did not finish within its total limit of 5 s/);
  assert.ok(run.received.some((entry) => entry.cancelled !== undefined));
});

test("a 10 MB result is stored whole and paged, not cut or flooded into the window", async () => {
  const run = await runHostile([call("huge")]);
  assert.equal(run.code, 0, run.stderr);
  const result = run.results[0] ?? "";
  assert.ok(result.length < 200_000, `the model got ${result.length} characters`);
  const name = /stored whole as "([^"]+)"/.exec(result)?.[1];
  assert.ok(name, result.slice(0, 400));
  assert.match(result, /END$/);
});

test("structured content that breaks the tool's own output schema is an error, not a success", async () => {
  const run = await runHostile([call("bad_structured")]);
  assert.match(run.results[0] ?? "", /does not match the output schema it declares/);
  assert.match(run.results[0] ?? "", /count/);
});

test("a tool whose schema does not compile is left out and named once; the server's other tools work", async () => {
  const run = await runHostile([call("add", { a: 40, b: 2 })]);
  assert.equal(run.code, 0, run.stderr);
  const names = toolNames(run.requests[0]);
  assert.ok(!names.includes("mcp__hostile__bad_schema"), names.join(", "));
  assert.ok(names.includes("mcp__hostile__add"));
  assert.equal(
    run.stderr.match(/MCP tool left out: mcp__hostile__bad_schema/g)?.length,
    1,
    run.stderr,
  );
  assert.match(run.stderr, /does not compile/);
  assert.match(run.results[0] ?? "", /^42$/);
});

test("a server listing 500 tools and a 100 KB schema cannot fill the window: the excess is left out and named", async () => {
  const run = await runHostile([call("add", { a: 1, b: 2 })], {
    env: { MANY_TOOLS: "500", BIG_SCHEMA: "1" },
  });
  assert.equal(run.code, 0, run.stderr);
  const names = toolNames(run.requests[0]).filter((name) => name.startsWith("mcp__hostile__"));
  assert.equal(names.length, 128);
  assert.match(run.stderr, /MCP servers: hostile \(128 tools\)/);
  assert.ok(!names.includes("mcp__hostile__big_schema"));
  assert.match(run.stderr, /hostile: tools past its first 128 \(it lists \d+\)/);
  assert.match(run.stderr, /big_schema: its input schema is \d+ KiB/);
  assert.match(run.results[0] ?? "", /^3$/);
});

test("an output schema that does not compile loses neither the tool list nor the result", async () => {
  const run = await runHostile([call("odd_output")]);
  assert.equal(run.code, 0, run.stderr);
  assert.ok(toolNames(run.requests[0]).includes("mcp__hostile__add"), run.stderr);
  assert.match(
    run.results[0] ?? "",
    /^\{"n":1\}\n\[nex could not check this result: its output schema does not compile/,
  );
});

test("a schema that names draft 2020-12 is offered and checked", async () => {
  const run = await runHostile([call("modern", { word: 7 }), call("modern", { word: "hi" })]);
  assert.ok(toolNames(run.requests[0]).includes("mcp__hostile__modern"));
  assert.match(run.results[0] ?? "", /`word` must be a string/);
  assert.match(run.results[1] ?? "", /^modern hi$/);
});

test("an error result is reported as an error", async () => {
  const run = await runHostile([call("fails")]);
  assert.match(run.results[0] ?? "", /reported an error:\nquota exceeded for project X/);
});

test("arguments that break the server's schema are refused by nex and never sent; a number written as a string is sent as the number", async () => {
  const run = await runHostile([call("add", { a: "two", b: 3 }), call("add", { a: "2", b: 3 })]);
  assert.match(run.results[0] ?? "", /was not run/);
  assert.match(run.results[0] ?? "", /`a` must be an integer/);
  // "2" can mean nothing but 2 where the schema wants an integer (r14): the server adds, not joins.
  assert.equal(run.results[1], "5");
  assert.equal(run.received.filter((entry) => entry.call).length, 1);
});

test("garbage on the server's stdout is skipped: it neither hangs nor crashes nex", async () => {
  const run = await runHostile([call("garbage_then_answer")], { env: { GARBAGE_AT_START: "1" } });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.results[0] ?? "", /answer after garbage/);
});

test("thousands of notifications during a call do not hang it", async () => {
  const run = await runHostile([call("chatty")]);
  assert.match(run.results[0] ?? "", /chatty done/);
});

test("a tool the server removes from its list is refused with the reason, and leaves the model's list", async () => {
  const run = await runHostile([call("vanish"), call("vanish")]);
  assert.match(run.results[0] ?? "", /vanished/);
  assert.match(run.results[1] ?? "", /was not run/);
  assert.match(run.results[1] ?? "", /tool list changed/);
  assert.ok(toolNames(run.requests[0]).includes("mcp__hostile__vanish"));
  assert.ok(!toolNames(run.requests[2]).includes("mcp__hostile__vanish"));
  assert.equal(run.received.filter((entry) => entry.call === "vanish").length, 1);
});

test("a server that fails to start is reported once with its stderr tail, and the run goes on", async () => {
  const run = await runHostile([openaiText("no tools needed")], { env: { FAIL_AT_START: "1" } });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stderr.match(/was not started/g)?.length, 1, run.stderr);
  assert.match(run.stderr, /fatal: cannot open database/);
  assert.match(run.stderr, /nex mcp test hostile/);
  assert.ok(!toolNames(run.requests[0]).some((name) => name.startsWith("mcp__")));
});

test("a server that never answers the handshake delays the run by its start-up budget only, and is stopped", async () => {
  const box = makeSandbox();
  const pidFile = join(box.workspace, "..", "silent.pid");
  // A server that starts, says nothing and reads nothing.
  const run = await runHostile([openaiText("no tools needed")], {
    server: {
      command: "sh",
      args: ["-c", `echo $$ > '${pidFile}'; exec sleep 300`],
      startupTimeoutSeconds: 1,
    },
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /did not answer the handshake within 1 s/);
  assert.equal(run.requests.length, 1);
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  assert.ok(pid > 0);
  assert.equal(await gone(pid), true, `the server ${pid} outlived nex`);
});

/** Waits (a loaded machine reaps slowly) for a process to be gone. */
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

test("MCP tools ask in ask mode (refused headless) and run on --yes; a deny rule refuses even on --yes; an allow rule runs without --yes", async () => {
  const asked = await runHostile([call("add", { a: 1, b: 1 })], { extraArgs: [] });
  assert.match(asked.results[0] ?? "", /approv/i);
  assert.equal(asked.received.filter((entry) => entry.call).length, 0);

  const denied = await runHostile([call("add", { a: 1, b: 1 })], {
    config: { commands: { deny: ["mcp__hostile__add"] } },
  });
  assert.match(denied.results[0] ?? "", /deny rule "mcp__hostile__add"/);
  assert.equal(denied.received.filter((entry) => entry.call).length, 0);

  const allowed = await runHostile([call("add", { a: 1, b: 1 })], {
    extraArgs: [],
    config: { commands: { allow: ["mcp__hostile"] } },
  });
  assert.match(allowed.results[0] ?? "", /^2$/);
});

test("a signal while servers are still starting stops them too", async () => {
  const box = makeSandbox();
  const pidFile = join(box.workspace, "..", "silent.pid");
  const config = writeMcpConfig(join(box.workspace, "..", "mcp.json"), {
    silent: {
      command: "sh",
      args: ["-c", `echo $$ > '${pidFile}'; exec sleep 300`],
      startupTimeoutSeconds: 60,
    },
  });
  const stub = await startStubEndpoint({ routes: largeWindow, handler: model([]) });
  try {
    const nex = startNex(runArgs(stub.url, box.dataDir, "--mcp-config", config, "--yes", "go"), {
      cwd: box.workspace,
      env: box.env,
    });
    const pid = await waitForPidFile(pidFile);
    nex.child.kill("SIGTERM");
    const result = await nex.done;
    assert.ok(
      result.signal === "SIGTERM" || result.code === 143,
      `${result.code} ${result.signal}`,
    );
    assert.equal(await gone(pid), true, `the server ${pid} outlived nex`);
  } finally {
    await stub.close();
  }
});

test("a tool the server calls read-only still asks in ask mode: a hint never loosens a rule", async () => {
  const run = await runHostile([call("peek")], { extraArgs: [] });
  assert.match(run.results[0] ?? "", /approv/i);
  assert.equal(run.received.filter((entry) => entry.call).length, 0);
});

test("a call cut by the output limit is never sent to the server", async () => {
  const run = await runHostile([
    openaiToolCall({
      name: "mcp__hostile__add",
      args: { a: 12345, b: 67890 },
      cutAt: 12,
      finishReason: "length",
    }),
  ]);
  assert.equal(run.received.filter((entry) => entry.call).length, 0);
  assert.match(run.results[0] ?? "", /not run|was not|cut|limit/i);
});

test("a stdio server gets a clean environment: nex's key and other tokens are not inherited, its own env is", async () => {
  const run = await runHostile([call("env_names")], {
    env: { OWN_SETTING: "yes" },
    nexEnv: {
      OPENAI_API_KEY: "sk-nex-key-1234567890",
      GITHUB_TOKEN: "ghp_abcdefghijklmnop",
      HTTPS_PROXY: "http://user:proxy-pass-777@proxy.example:3128",
    },
  });
  const names = (run.results[0] ?? "").split(",");
  assert.ok(names.includes("OWN_SETTING"), run.results[0]);
  assert.ok(names.includes("PATH"));
  assert.ok(names.includes("HTTPS_PROXY"), run.results[0]);
  assert.ok(!names.includes("OPENAI_API_KEY"), run.results[0]);
  assert.ok(!names.includes("GITHUB_TOKEN"), run.results[0]);
});

test("Ctrl-C during a call sends notifications/cancelled and stops the server's process group", async () => {
  const box = makeSandbox();
  const callsFile = join(box.workspace, "..", "calls.jsonl");
  const config = writeMcpConfig(join(box.workspace, "..", "mcp.json"), {
    hostile: scriptServer(HOSTILE, { CALLS_FILE: callsFile }),
  });
  const stub = await startStubEndpoint({
    routes: largeWindow,
    handler: model([call("spawn_child"), call("hang")]),
  });
  try {
    const nex = startNex(runArgs(stub.url, box.dataDir, "--mcp-config", config, "--yes", "go"), {
      cwd: box.workspace,
      env: box.env,
    });
    const deadline = Date.now() + 60_000;
    const received = () => (existsSync(callsFile) ? readFileSync(callsFile, "utf8") : "");
    while (!received().includes('"hang"') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    nex.child.kill("SIGINT");
    const result = await nex.done;
    assert.equal(result.code, 130, result.stderr);
    assert.match(received(), /"cancelled"/);
    const spawned = chat(stub.requests)
      .flatMap((request) => toolResults(request))
      .join("\n");
    const pid = Number(/child pid (\d+)/.exec(spawned)?.[1]);
    assert.ok(pid > 0, spawned);
    assert.equal(await gone(pid), true, `the server's child ${pid} outlived nex`);
  } finally {
    await stub.close();
  }
});

test("an HTTP server whose connection breaks mid-call: outcome unknown, not 'nothing was sent'; a refused token is a refusal", async () => {
  const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
  const { StreamableHTTPServerTransport } = await import(
    "@modelcontextprotocol/sdk/server/streamableHttp.js"
  );
  const { createServer } = await import("node:http");
  let calls = 0;
  let tokenOk = true;
  const http = createServer(async (req, res) => {
    if (!tokenOk) {
      res.writeHead(401).end();
      return;
    }
    const server = new McpServer({ name: "flaky", version: "1.0.0" });
    server.registerTool("die", { description: "Breaks the connection" }, async () => {
      calls += 1;
      tokenOk = false;
      req.socket.destroy();
      return new Promise(() => {});
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const port = (http.address() as { port: number }).port;
  const box = makeSandbox();
  const config = writeMcpConfig(join(box.workspace, "..", "mcp.json"), {
    flaky: { type: "http", url: `http://127.0.0.1:${port}/mcp` },
  });
  const stub = await startStubEndpoint({
    routes: largeWindow,
    handler: model([
      openaiToolCall({ name: "mcp__flaky__die", args: {} }),
      openaiToolCall({ name: "mcp__flaky__die", args: {} }),
    ]),
  });
  try {
    const result = await runNex(
      runArgs(stub.url, box.dataDir, "--mcp-config", config, "--yes", "go"),
      {
        cwd: box.workspace,
        env: box.env,
      },
    );
    assert.equal(result.code, 0, result.stderr);
    const requests = chat(stub.requests);
    const [broken, refused] = toolResults(requests[requests.length - 1]);
    assert.match(broken ?? "", /outcome unknown: it may or may not have happened/);
    assert.match(broken ?? "", /connection to the server broke/);
    assert.match(refused ?? "", /refused the request with HTTP 401/);
    assert.equal(calls, 1);
  } finally {
    await stub.close();
    http.closeAllConnections();
    http.close();
  }
});

test("a stateful HTTP server that forgets the session: the call is refused as not run, and the next call opens a new session", async () => {
  const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
  const { StreamableHTTPServerTransport } = await import(
    "@modelcontextprotocol/sdk/server/streamableHttp.js"
  );
  const { createServer } = await import("node:http");
  const { randomUUID } = await import("node:crypto");
  const sessions = new Map<string, InstanceType<typeof StreamableHTTPServerTransport>>();
  let pings = 0;
  const http = createServer(async (req, res) => {
    const id = req.headers["mcp-session-id"];
    const known = typeof id === "string" ? sessions.get(id) : undefined;
    if (known) return known.handleRequest(req, res);
    if (typeof id === "string") {
      res.writeHead(404, { "content-type": "application/json" });
      res.end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}');
      return;
    }
    const server = new McpServer({ name: "stateful", version: "1.0.0" });
    server.registerTool("forget", { description: "Forgets every session" }, async () => {
      setTimeout(() => sessions.clear(), 0);
      return { content: [{ type: "text", text: "forgotten" }] };
    });
    server.registerTool("ping", { description: "Answers pong" }, async () => {
      pings += 1;
      return { content: [{ type: "text", text: "pong" }] };
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, transport);
      },
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const port = (http.address() as { port: number }).port;
  const box = makeSandbox();
  const config = writeMcpConfig(join(box.workspace, "..", "mcp.json"), {
    stateful: { type: "http", url: `http://127.0.0.1:${port}/mcp` },
  });
  const tool = (name: string) => openaiToolCall({ name: `mcp__stateful__${name}`, args: {} });
  const stub = await startStubEndpoint({
    routes: largeWindow,
    handler: model([tool("forget"), tool("ping"), tool("ping")]),
  });
  try {
    const result = await runNex(
      runArgs(stub.url, box.dataDir, "--mcp-config", config, "--yes", "go"),
      {
        cwd: box.workspace,
        env: box.env,
      },
    );
    assert.equal(result.code, 0, result.stderr);
    const requests = chat(stub.requests);
    const [forgotten, refused, answered] = toolResults(requests[requests.length - 1]);
    assert.match(forgotten ?? "", /forgotten/);
    assert.match(
      refused ?? "",
      /no longer knows this session \(HTTP 404\), so it did not run the call/,
    );
    assert.match(answered ?? "", /pong/);
    assert.equal(pings, 1);
  } finally {
    await stub.close();
    http.closeAllConnections();
    http.close();
  }
});
