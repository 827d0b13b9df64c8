import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex, startNex } from "../support/cli.ts";
import { startForwardProxy } from "../support/forward-proxy.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import {
  json,
  openaiCompletion,
  openaiText,
  openaiToolCall,
  openaiToolCalls,
  status,
} from "../support/stub-scripts.ts";

const KEY = "sk-test-DO-NOT-LEAK-4242";

function args(url: string, dataDir: string, ...rest: string[]): string[] {
  return [
    "run",
    "--model",
    "stub-model",
    "--base-url",
    `${url}/v1`,
    "--data-dir",
    dataDir,
    ...rest,
  ];
}

function chatRequests(stub: { requestsTo(path: string): unknown[] }): number {
  return stub.requestsTo("/v1/chat/completions").length;
}

test("400_no_retry_loop: a 400 is sent exactly once, surfaces in full, and the exit status is non-zero", async () => {
  const stub = await startStubEndpoint({
    handler: () =>
      status(400, { body: { error: { message: "messages[3].content: expected a string" } } }),
  });
  const box = makeSandbox();
  const result = await runNex(args(stub.url, box.dataDir, "fix the bug"), {
    cwd: box.workspace,
    env: { ...box.env, OPENAI_API_KEY: KEY },
  });
  await stub.close();
  assert.equal(chatRequests(stub), 1);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /400/);
  assert.match(result.stderr, /messages\[3\]\.content: expected a string/);
  assert.equal(result.stdout, "");
  assert.ok(!result.stderr.includes(KEY), "the key must not appear in the output");
});

test("429_backoff: waits follow Retry-After, then the task succeeds", async () => {
  const stub = await startStubEndpoint({
    scripts: [
      status(429, { headers: { "retry-after": "1" } }),
      status(429, { headers: { "retry-after": "1" } }),
      openaiText("All good now."),
    ],
  });
  const box = makeSandbox();
  const result = await runNex(args(stub.url, box.dataDir, "say hi"), {
    cwd: box.workspace,
    env: box.env,
  });
  await stub.close();
  const posts = stub.requestsTo("/v1/chat/completions");
  assert.equal(result.code, 0, result.stderr);
  assert.equal(posts.length, 3);
  assert.match(result.stderr, /429 .*retry 1\/3 in 1\.\ds/);
  assert.match(result.stderr, /429 .*retry 2\/3 in 1\.\ds/);
  for (let i = 1; i < posts.length; i++) {
    const gap = (posts[i]?.receivedAt ?? 0) - (posts[i - 1]?.receivedAt ?? 0);
    assert.ok(gap >= 900, `retry ${i} came after ${gap} ms, before the 1 s Retry-After`);
  }
  assert.equal(result.stdout.trim(), "All good now.");
});

test("429 forever: at most 3 retries, then the last error and a failure exit", async () => {
  const stub = await startStubEndpoint({
    handler: () => status(429, { headers: { "retry-after": "0" } }),
  });
  const box = makeSandbox();
  const result = await runNex(args(stub.url, box.dataDir, "say hi"), {
    cwd: box.workspace,
    env: box.env,
  });
  await stub.close();
  assert.equal(chatRequests(stub), 4);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /giving up/);
});

test("a Retry-After of 120 s is surfaced at once instead of slept through", async () => {
  const stub = await startStubEndpoint({
    handler: () => status(429, { headers: { "retry-after": "120" } }),
  });
  const box = makeSandbox();
  const started = Date.now();
  const result = await runNex(args(stub.url, box.dataDir, "say hi"), {
    cwd: box.workspace,
    env: box.env,
  });
  await stub.close();
  assert.equal(chatRequests(stub), 1);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /120/);
  // Far from both the 120 s asked and a run on a loaded machine.
  assert.ok(Date.now() - started < 100_000);
});

test("a write_file cut off by the output limit leaves no file and the model is told", async () => {
  const content = 'fn main() {\n    println!("hello");\n}\n'.repeat(40);
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({
        name: "write_file",
        args: { path: "src/main.rs", content },
        cutAt: 700,
        finishReason: "length",
        usage: { input: 100, output: 4096 },
      }),
      openaiText("I could not write the file."),
    ],
  });
  const box = makeSandbox();
  const result = await runNex(args(stub.url, box.dataDir, "--yes", "write main.rs"), {
    cwd: box.workspace,
    env: box.env,
  });
  await stub.close();
  assert.equal(existsSync(join(box.workspace, "src", "main.rs")), false);
  assert.equal(existsSync(join(box.workspace, "src")), false);
  const second = stub.requestsTo("/v1/chat/completions")[1]?.body as {
    messages: Array<{ role: string; content: string }>;
  };
  const toolMessage = second.messages.find((m) => m.role === "tool");
  assert.ok(toolMessage, "the model gets a tool result for the cut call");
  assert.match(toolMessage.content, /nothing was run or written/);
  assert.match(result.stderr, /write_file refused/);
  assert.doesNotMatch(result.stderr, /✓ write_file/);
});

test("a write_file without content leaves no file and names the missing key", async () => {
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({ name: "write_file", args: { path: "notes.md" } }),
      openaiText("Sorry."),
    ],
  });
  const box = makeSandbox();
  await runNex(args(stub.url, box.dataDir, "--yes", "write notes"), {
    cwd: box.workspace,
    env: box.env,
  });
  await stub.close();
  assert.equal(existsSync(join(box.workspace, "notes.md")), false);
  const second = stub.requestsTo("/v1/chat/completions")[1]?.body as {
    messages: Array<{ role: string; content: string }>;
  };
  const toolMessage = second.messages.find((m) => m.role === "tool");
  assert.match(toolMessage?.content ?? "", /content/);
});

test("without --yes, headless mode refuses a write, leaves the file untouched, tells the model, and exits 4 (nothing changed)", async () => {
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({ name: "write_file", args: { path: "a.txt", content: "new" } }),
      openaiText("ok"),
    ],
  });
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "b.txt"), "keep");
  const result = await runNex(args(stub.url, box.dataDir, "write a"), {
    cwd: box.workspace,
    env: box.env,
  });
  await stub.close();
  assert.equal(existsSync(join(box.workspace, "a.txt")), false);
  const second = stub.requestsTo("/v1/chat/completions")[1]?.body as {
    messages: Array<{ role: string; content: string }>;
  };
  assert.match(second.messages.find((m) => m.role === "tool")?.content ?? "", /--yes/);
  assert.equal(result.code, 4);
  assert.match(result.stderr, /no changes were made .*write_file a\.txt/);
});

test("Ctrl-C mid-stream exits though the stream would not end, and no further request arrives", async () => {
  // A stream that never ends: exiting with 130 is the interrupt's doing (the idle timeout's end, long
  // after, would be a failure with another status).
  const stub = await startStubEndpoint({
    handler: () => ({
      ...openaiText("a long answer that streams slowly ".repeat(20), {
        chunkSize: 4,
        finishReason: null,
        includeDone: false,
        end: "hang",
      }),
      delayMs: 100,
    }),
  });
  const box = makeSandbox();
  const run = startNex(args(stub.url, box.dataDir, "explain"), {
    cwd: box.workspace,
    env: box.env,
  });
  while (stub.requestsTo("/v1/chat/completions").length === 0)
    await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 300));
  run.child.kill("SIGINT");
  const result = await run.done;
  await new Promise((r) => setTimeout(r, 300));
  await stub.close();
  assert.equal(result.code, 130, result.stderr);
  assert.equal(chatRequests(stub), 1);
  assert.match(result.stderr, /interrupted/);
});

test("a refused configuration exits 3 with what to fix", async () => {
  const box = makeSandbox();
  const result = await runNex(["run", "--model", "m", "--base-url", "not a url", "hi"], {
    cwd: box.workspace,
    env: box.env,
  });
  assert.equal(result.code, 3);
  assert.match(result.stderr, /--base-url/);
});

test("the session says how commands are confined: on stderr, in --json, loudly when off", async () => {
  const box = makeSandbox();
  const run = async (...extra: string[]) => {
    const stub = await startStubEndpoint({ scripts: [openaiText("hello")] });
    const result = await runNex(args(stub.url, box.dataDir, ...extra, "hi"), {
      cwd: box.workspace,
      env: box.env,
    });
    await stub.close();
    return result;
  };
  const json = await run("--json");
  const started = JSON.parse(json.stdout.split("\n")[0] ?? "{}") as {
    sandbox?: { mode: string; network: boolean; state: string };
  };
  assert.equal(started.sandbox?.mode, "workspace-write");
  assert.equal(started.sandbox?.network, false);
  assert.match(started.sandbox?.state ?? "", /^(active|unavailable)$/);
  assert.equal((started.sandbox as { allowHosts?: string[] }).allowHosts, undefined);
  const hosts = await run("--json", "--allow-host", "npm,pypi");
  const filtered = JSON.parse(hosts.stdout.split("\n")[0] ?? "{}") as {
    sandbox?: { network: boolean; allowHosts?: string[]; state: string; line: string };
  };
  assert.equal(filtered.sandbox?.network, false);
  if (filtered.sandbox?.state === "active") {
    assert.deepEqual(filtered.sandbox.allowHosts, ["npm", "pypi"]);
    assert.match(filtered.sandbox.line, /network only to npm, pypi, through nex's proxy/);
  }
  const off = await run("--sandbox", "off");
  assert.match(off.stderr, /nex: warning: sandbox off: commands run unconfined/);
  const bad = await run("--sandbox", "sometimes");
  assert.equal(bad.code, 3);
  assert.match(
    bad.stderr,
    /Unknown sandbox mode "sometimes". Use workspace-write \(the default\), read-only, or off/,
  );
});

test("--json prints the event stream as JSON lines on stdout, ending in one terminal event", async () => {
  const stub = await startStubEndpoint({ scripts: [openaiText("hello")] });
  const box = makeSandbox();
  const result = await runNex(args(stub.url, box.dataDir, "--json", "hi"), {
    cwd: box.workspace,
    env: box.env,
  });
  await stub.close();
  const events = result.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string });
  assert.equal(events[0]?.type, "session_started");
  assert.equal(events.at(-1)?.type, "done");
  assert.equal(events.filter((e) => ["done", "error", "aborted"].includes(e.type)).length, 1);
  assert.equal(result.code, 0);
});

test("the API key is sent to the endpoint but written nowhere in the journal", async () => {
  const stub = await startStubEndpoint({
    scripts: [status(401, { body: { error: { message: "bad key" } } })],
  });
  const box = makeSandbox();
  const result = await runNex(args(stub.url, box.dataDir, "hi"), {
    cwd: box.workspace,
    env: { ...box.env, OPENAI_API_KEY: KEY },
  });
  await stub.close();
  assert.equal(stub.requests[0]?.headers.authorization, `Bearer ${KEY}`);
  assert.notEqual(result.code, 0);
  assert.ok(!result.stderr.includes(KEY));
  const written = readdirSync(box.dataDir, { recursive: true, withFileTypes: true }).filter((e) =>
    e.isFile(),
  );
  assert.ok(
    written.some((e) => e.name.endsWith(".jsonl")),
    "the session was journaled",
  );
  for (const entry of written) {
    const text = readFileSync(join(entry.parentPath, entry.name), "utf8");
    assert.ok(!text.includes(KEY), `the key is in ${entry.name}`);
  }
});

test("with no model given, nex uses the endpoint's only model, and lists them when there are several", async () => {
  const one = await startStubEndpoint({
    scripts: [openaiText("hi")],
    routes: { "GET /v1/models": json({ data: [{ id: "qwen3-coder-30b" }] }) },
  });
  const box = makeSandbox();
  const single = await runNex(
    ["run", "--base-url", `${one.url}/v1`, "--data-dir", box.dataDir, "hi"],
    {
      cwd: box.workspace,
      env: box.env,
    },
  );
  await one.close();
  assert.equal(single.code, 0, single.stderr);
  assert.match(single.stderr, /using qwen3-coder-30b, the only model/);
  assert.equal(
    (one.requestsTo("/v1/chat/completions")[0]?.body as { model?: string } | undefined)?.model,
    "qwen3-coder-30b",
  );

  const many = await startStubEndpoint({
    routes: { "GET /v1/models": json({ data: [{ id: "a" }, { id: "b" }] }) },
  });
  const several = await runNex(
    ["run", "--base-url", `${many.url}/v1`, "--data-dir", box.dataDir, "hi"],
    {
      cwd: box.workspace,
      env: box.env,
    },
  );
  await many.close();
  assert.equal(several.code, 3);
  assert.match(several.stderr, /serves 2: a, b\. Pass one with --model/);
  assert.equal(many.requestsTo("/v1/chat/completions").length, 0);
});

test("the workspace's AGENTS.md reaches the model in the system prompt", async () => {
  const stub = await startStubEndpoint({ scripts: [openaiText("ok")] });
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "AGENTS.md"), "Always run `make lint` before finishing.\n");
  const result = await runNex(args(stub.url, box.dataDir, "hi"), {
    cwd: box.workspace,
    env: box.env,
  });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const body = stub.requestsTo("/v1/chat/completions")[0]?.body as {
    messages: Array<{ role: string; content: string }>;
  };
  const system = body.messages.find((m) => m.role === "system");
  assert.match(system?.content ?? "", /Always run `make lint` before finishing\./);
});

test('with "stream": false in the config file, nex asks for whole responses and still refuses a cut call', async () => {
  const stub = await startStubEndpoint({
    scripts: [
      openaiCompletion({
        toolCalls: [{ name: "write_file", args: '{"path":"a.txt","content":"cut' }],
        finishReason: "length",
      }),
      openaiCompletion({ text: "Could not write it." }),
    ],
  });
  const box = makeSandbox();
  mkdirSync(join(box.env.XDG_CONFIG_HOME ?? "", "nex"), { recursive: true });
  writeFileSync(
    join(box.env.XDG_CONFIG_HOME ?? "", "nex", "config.json"),
    JSON.stringify({ stream: false }),
  );
  const result = await runNex(args(stub.url, box.dataDir, "--yes", "write a.txt"), {
    cwd: box.workspace,
    env: box.env,
  });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(
    (stub.requestsTo("/v1/chat/completions")[0]?.body as { stream?: boolean } | undefined)?.stream,
    false,
  );
  assert.equal(existsSync(join(box.workspace, "a.txt")), false);
  assert.match(result.stderr, /write_file refused/);
});

test("behind a proxy (HTTP_PROXY), requests go through it, local servers never do, and a proxy that is not a URL is refused", async () => {
  const stub = await startStubEndpoint({
    scripts: [openaiText("via the proxy"), openaiText("direct")],
  });
  const proxy = await startForwardProxy();
  const box = makeSandbox();
  // The name resolves only inside the proxy: the answer can have come only through it.
  const remote = stub.url.replace("127.0.0.1", "models.nex.test");
  try {
    const result = await runNex(args(remote, box.dataDir, "hi"), {
      cwd: box.workspace,
      env: { ...box.env, HTTP_PROXY: proxy.url },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), "via the proxy");
    assert.ok(proxy.seen.includes(`POST ${remote}/v1/chat/completions`), proxy.seen.join(", "));

    const local = await runNex(args(stub.url, box.dataDir, "hi"), {
      cwd: box.workspace,
      env: { ...box.env, http_proxy: proxy.url, NO_PROXY: "intranet.example" },
    });
    assert.equal(local.stdout.trim(), "direct");
    assert.ok(
      !proxy.seen.some((line) => line.includes(stub.url)),
      "a local server went through the proxy",
    );

    const refused = await runNex(args(stub.url, box.dataDir, "hi"), {
      cwd: box.workspace,
      env: { ...box.env, https_proxy: "proxy.example:3128" },
    });
    assert.equal(refused.code, 3);
    assert.match(
      refused.stderr,
      /HTTPS_PROXY is set to something that is not an http:\/\/ or https:\/\/ URL/,
    );
  } finally {
    await proxy.close();
    await stub.close();
  }
});

test("a reader that closes stdout early (nex run … | head -1) does not crash nex: the task runs to its end", async () => {
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({ name: "write_file", args: { path: "done.txt", content: "finished\n" } }),
      // ~500 KB of --json lines, far more than a pipe holds, within the max_tokens nex asks for.
      openaiText("line\n".repeat(8_000)),
    ],
  });
  const box = makeSandbox();
  const run = startNex([...args(stub.url, box.dataDir, "--yes", "--json", "write done.txt")], {
    cwd: box.workspace,
    env: box.env,
  });
  run.child.stdout?.once("data", () => run.child.stdout?.destroy());
  const result = await run.done;
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.doesNotMatch(result.stderr, /EPIPE|Unhandled 'error'/);
  assert.equal(readFileSync(join(box.workspace, "done.txt"), "utf8"), "finished\n");
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 2);
});

test("a proxy's password reaches the commands that need the proxy but is written nowhere in the journal", async () => {
  const stub = await startStubEndpoint({
    scripts: [openaiToolCall({ name: "bash", args: { command: "env" } }), openaiText("done")],
  });
  const proxy = await startForwardProxy();
  const box = makeSandbox();
  const password = "s3cret-proxy-pass";
  try {
    const result = await runNex(
      [...args(stub.url.replace("127.0.0.1", "models.nex.test"), box.dataDir, "--yes", "show env")],
      {
        cwd: box.workspace,
        env: { ...box.env, HTTP_PROXY: proxy.url.replace("//", `//alice:${password}@`) },
      },
    );
    assert.equal(result.code, 0, result.stderr);
    const toolResult = JSON.stringify(stub.requestsTo("/v1/chat/completions")[1]?.body);
    assert.match(toolResult, /HTTP_PROXY=/, "commands get the proxy setting");
    const written = readdirSync(box.dataDir, { recursive: true, withFileTypes: true }).filter((e) =>
      e.isFile(),
    );
    assert.ok(written.length > 0);
    for (const entry of written) {
      const text = readFileSync(join(entry.parentPath, entry.name), "utf8");
      assert.ok(!text.includes(password), `the proxy password is in ${entry.name}`);
    }
  } finally {
    await proxy.close();
    await stub.close();
  }
});

test("with --data-dir workspace, the model's tools keep out of nex's own journals and checkpoints", async () => {
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCalls([
        { name: "grep", args: { pattern: "zebra-unique-word" }, id: "g" },
        { name: "list_dir", args: { path: ".nex" }, id: "l" },
        {
          name: "write_file",
          args: { path: ".nex/sessions/forged.jsonl", content: "{}\n" },
          id: "w",
        },
        { name: "bash", args: { command: "rm -rf .nex" }, id: "b" },
      ]),
      openaiToolCall({ name: "bash", args: { command: "echo made > made.txt" }, id: "m" }),
      openaiText("done"),
    ],
  });
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "notes.txt"), "zebra-unique-word lives here\n");
  const result = await runNex(
    [
      "run",
      "--model",
      "stub-model",
      "--base-url",
      `${stub.url}/v1`,
      "--data-dir",
      "workspace",
      "--yes",
      "find zebra-unique-word",
    ],
    { cwd: box.workspace, env: box.env },
  );
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const told = JSON.stringify(stub.requestsTo("/v1/chat/completions")[1]?.body);
  assert.match(told, /notes\.txt:1: zebra-unique-word/);
  assert.doesNotMatch(told, /\.nex\/sessions\/[^"\\\\]*\.jsonl:/, "grep listed the journal");
  assert.match(told, /nex's own session data/);
  assert.ok(existsSync(join(box.workspace, ".nex", "sessions")), "the journals survived");
  assert.ok(!existsSync(join(box.workspace, ".nex", "sessions", "forged.jsonl")));

  // Undo of the command's turn removes what it made, and leaves the journal as it is: snapshots
  // never held it, so undo cannot rewind it.
  const sessions = join(box.workspace, ".nex", "sessions");
  const journal = join(sessions, readdirSync(sessions)[0] ?? "");
  const before = readFileSync(journal, "utf8");
  const undo = await runNex(["undo", "--data-dir", "workspace"], {
    cwd: box.workspace,
    env: box.env,
  });
  assert.equal(undo.code, 0, undo.stderr + undo.stdout);
  assert.ok(!existsSync(join(box.workspace, "made.txt")));
  assert.ok(readFileSync(journal, "utf8").startsWith(before), "undo rewound the journal");
  assert.doesNotMatch(undo.stdout + undo.stderr, /\.nex/, "undo's report speaks of nex's own data");
});
