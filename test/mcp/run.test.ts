// The real `nex run` against the stub endpoint, calling tools of real MCP servers from the registry.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { toolResults } from "../faults/scenario.ts";
import { makeSandbox, runNex } from "../support/cli.ts";
import { startForwardProxy } from "../support/forward-proxy.ts";
import {
  everythingServer,
  filesystemServer,
  largeWindow,
  runArgs,
  writeMcpConfig,
} from "../support/mcp-servers.ts";
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
    routes: largeWindow,
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
    assert.match(result.stderr, /MCP servers: everything \(\d+ tools\)/);
    const results = toolResults(requests[1]);
    assert.match(results[0] ?? "", /Echo: hello from nex/);
  } finally {
    await stub.close();
  }
});

async function runWith(
  servers: Record<string, object>,
  answers: Script[],
  options: {
    args?: string[];
    env?: Record<string, string>;
    box?: ReturnType<typeof makeSandbox>;
  } = {},
) {
  const box = options.box ?? makeSandbox();
  const config = writeMcpConfig(join(box.workspace, "..", "mcp.json"), servers);
  const stub = await startStubEndpoint({ routes: largeWindow, handler: model(answers) });
  try {
    const result = await runNex(
      runArgs(stub.url, box.dataDir, "--mcp-config", config, ...(options.args ?? ["--yes"]), "go"),
      { cwd: box.workspace, env: { ...box.env, ...options.env } },
    );
    const requests = chat(stub.requests);
    return { ...result, requests, results: toolResults(requests[requests.length - 1]), box };
  } finally {
    await stub.close();
  }
}

const everythingCall = (tool: string, args: object = {}) =>
  openaiToolCall({ name: `mcp__everything__${tool}`, args });

test("structured content is checked against the tool's output schema and shown; an image is described, a resource given with its URI", async () => {
  const run = await runWith({ everything: everythingServer() }, [
    everythingCall("get-structured-content", { location: "Chicago" }),
    everythingCall("get-tiny-image"),
    everythingCall("get-resource-reference", { resourceType: "Text", resourceId: 2 }),
  ]);
  assert.equal(run.code, 0, run.stderr);
  const [structured, image, resource] = run.results;
  assert.match(structured ?? "", /"temperature"/);
  assert.doesNotMatch(structured ?? "", /does not match/);
  assert.match(image ?? "", /\[image: image\/png, [\d.]+ (bytes|KiB); not shown/);
  assert.doesNotMatch(image ?? "", /iVBOR/);
  assert.match(
    resource ?? "",
    /\[resource demo:\/\/resource\/dynamic\/text\/2 \(text\/plain\)\]\nResource 2: /,
  );
});

test("a long operation's progress keeps the call alive past its no-progress timeout", async () => {
  const run = await runWith({ everything: { ...everythingServer(), timeoutSeconds: 2 } }, [
    everythingCall("trigger-long-running-operation", { duration: 4, steps: 4 }),
  ]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.results[0] ?? "", /Long running operation completed/);
});

test("a file written by the filesystem server is in the workspace, checkpointed, and nex undo restores it", async () => {
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "notes.txt"), "original\n");
  const target = join(box.workspace, "notes.txt");
  const run = await runWith(
    { fs: filesystemServer(box.workspace) },
    [
      openaiToolCall({
        name: "mcp__fs__write_file",
        args: { path: target, content: "changed by mcp\n" },
      }),
    ],
    { box },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.results[0] ?? "", /Successfully wrote/);
  assert.equal(readFileSync(target, "utf8"), "changed by mcp\n");
  const undo = await runNex(["undo", "--data-dir", box.dataDir], {
    cwd: box.workspace,
    env: box.env,
  });
  assert.equal(undo.code, 0, undo.stdout + undo.stderr);
  assert.equal(readFileSync(target, "utf8"), "original\n");
});

test("secrets in a server's env reach neither the model, the output, --json, the journal nor the server log", async () => {
  const secret = "mcp-env-secret-Zq8vN3xW7kR2mP5t";
  const run = await runWith(
    { everything: everythingServer({ DB_PASSWORD: `\${MY_DB_PASSWORD}` }) },
    [everythingCall("get-env")],
    { args: ["--yes", "--json"], env: { MY_DB_PASSWORD: secret } },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.results[0] ?? "", /DB_PASSWORD/);
  assert.match(run.results[0] ?? "", /redacted/);
  const everywhere = [
    JSON.stringify(run.requests.map((r) => r.body)),
    run.stdout,
    run.stderr,
    ...filesUnder(run.box.dataDir).map((file) => readFileSync(file, "latin1")),
  ];
  for (const text of everywhere) assert.ok(!text.includes(secret), text.slice(0, 300));
});

test("a streamable HTTP server on 127.0.0.1 with a bearer token from a variable: tools work, the token is never shown", async () => {
  const token = "http-bearer-token-7Hq2Lx9Pw4Rt";
  const remote = await startRemoteServer(token);
  try {
    const run = await runWith(
      {
        remote: {
          type: "http",
          url: remote.url,
          headers: { Authorization: `Bearer \${REMOTE_TOKEN}` },
        },
      },
      [openaiToolCall({ name: "mcp__remote__whoami", args: {} })],
      { args: ["--yes", "--json"], env: { REMOTE_TOKEN: token } },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.results[0] ?? "", /authorized as \[redacted/);
    const everywhere = [
      JSON.stringify(run.requests.map((r) => r.body)),
      run.stdout,
      run.stderr,
      ...filesUnder(run.box.dataDir).map((file) => readFileSync(file, "latin1")),
    ];
    for (const text of everywhere) assert.ok(!text.includes(token), text.slice(0, 300));
  } finally {
    await remote.close();
  }
});

test("a remote server that refuses the token is reported once and the run goes on", async () => {
  const remote = await startRemoteServer("the-right-token-123456");
  try {
    const run = await runWith(
      {
        remote: {
          type: "http",
          url: remote.url,
          headers: { Authorization: "Bearer wrong-token-abcdef" },
        },
      },
      [openaiText("fine")],
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr.match(/MCP server remote .* was not started/g)?.length, 1, run.stderr);
    assert.ok(!run.stderr.includes("wrong-token-abcdef"), run.stderr);
  } finally {
    await remote.close();
  }
});

/** A streamable HTTP MCP server made with the SDK's own server classes, demanding a bearer token. */
async function startRemoteServer(token: string): Promise<{ url: string; close(): Promise<void> }> {
  const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
  const { StreamableHTTPServerTransport } = await import(
    "@modelcontextprotocol/sdk/server/streamableHttp.js"
  );
  const http = createServer(async (req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { "content-type": "application/json" }).end('{"error":"unauthorized"}');
      return;
    }
    const server = new McpServer({ name: "remote", version: "1.0.0" });
    server.registerTool("whoami", { description: "Says which token it was given" }, async () => ({
      content: [{ type: "text", text: `authorized as ${req.headers.authorization}` }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const address = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** server-everything serving streamable HTTP (`/mcp`) or the older HTTP+SSE (`/sse`) on a free port. */
async function startEverythingHttp(mode: "streamableHttp" | "sse") {
  const { spawn } = await import("node:child_process");
  const { createServer: createNetServer } = await import("node:net");
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const { args } = everythingServer() as { args: string[] };
  const child = spawn(process.execPath, [args[0] ?? "", mode], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server-everything ${mode} did not start: ${stderr}`)),
      60_000,
    );
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/listening|running/i.test(stderr)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return {
    url: `http://127.0.0.1:${port}${mode === "sse" ? "/sse" : "/mcp"}`,
    close: async () => {
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}

for (const [mode, type] of [
  ["streamableHttp", "http"],
  ["sse", "sse"],
] as const) {
  test(`server-everything over ${type === "http" ? "streamable HTTP" : "HTTP+SSE"}: its echo runs through nex run`, async () => {
    const server = await startEverythingHttp(mode);
    try {
      const run = await runWith({ everything: { type, url: server.url } }, [
        everythingCall("echo", { message: `over ${type}` }),
      ]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.results[0] ?? "", new RegExp(`Echo: over ${type}`));
    } finally {
      await server.close();
    }
  });
}

for (const [mode, type] of [
  ["streamableHttp", "http"],
  ["sse", "sse"],
] as const) {
  test(`behind HTTP_PROXY, a server over ${type === "http" ? "streamable HTTP" : "HTTP+SSE"} is reached through the proxy`, async () => {
    const server = await startEverythingHttp(mode);
    const proxy = await startForwardProxy();
    try {
      // `everything.test` resolves only inside the proxy: reaching the server proves the proxy carried it.
      const url = server.url.replace("127.0.0.1", "everything.test");
      const run = await runWith(
        { everything: { type, url } },
        [everythingCall("echo", { message: "through the proxy" })],
        { env: { HTTP_PROXY: proxy.url } },
      );
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.results[0] ?? "", /Echo: through the proxy/);
      const host = new URL(url).host;
      assert.ok(
        proxy.seen.some((line) => line.includes(`http://${host}/`)),
        `the proxy saw no request to ${host}: ${proxy.seen.join("; ")}`,
      );
    } finally {
      await proxy.close();
      await server.close();
    }
  });
}

test("on a 32k window an MCP server's tools are listed by load_tools, not sent, until the model loads one", async () => {
  const box = makeSandbox();
  const config = writeMcpConfig(join(box.workspace, "..", "mcp.json"), {
    everything: everythingServer(),
  });
  const stub = await startStubEndpoint({
    handler: model([
      openaiToolCall({ name: "load_tools", args: { names: ["mcp__everything__echo"] } }),
      openaiToolCall({ name: "mcp__everything__echo", args: { message: "loaded" } }),
    ]),
  });
  try {
    const result = await runNex(
      runArgs(stub.url, box.dataDir, "--yes", "--mcp-config", config, "say hi"),
      { cwd: box.workspace, env: box.env },
    );
    assert.equal(result.code, 0, result.stderr);
    const requests = chat(stub.requests);
    const toolsOf = (i: number) =>
      (
        (requests[i]?.body ?? {}) as {
          tools?: { function: { name: string; description: string } }[];
        }
      ).tools ?? [];
    const first = toolsOf(0);
    assert.ok(
      !first.some((t) => t.function.name.startsWith("mcp__")),
      "no MCP schema sent at first",
    );
    const loader = first.find((t) => t.function.name === "load_tools");
    assert.match(loader?.function.description ?? "", /mcp__everything__echo/);
    assert.ok(
      toolsOf(1).some((t) => t.function.name === "mcp__everything__echo"),
      "loaded",
    );
    assert.match(toolResults(requests[2]).join("\n"), /Echo: loaded/);
  } finally {
    await stub.close();
  }
});
