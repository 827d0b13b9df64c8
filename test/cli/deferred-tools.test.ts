// Tools loaded on demand: on a window of 32k or less a deferred tool (one registered the way an MCP
// server's tools are) is listed by name in `load_tools`, its schema joins the requests only after the
// model loads it, and its call then runs through the same checks as any tool.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex, type Sandbox } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";

const entry = resolve(import.meta.dirname, "..", "support", "nex-with-tools.ts");

type ToolBody = { function: { name: string; description: string; parameters: unknown } };
type ChatBody = { tools?: ToolBody[]; messages: Array<{ role: string; content: string | null }> };

function withWindow(box: Sandbox, window: number): void {
  mkdirSync(join(box.env.XDG_CONFIG_HOME ?? "", "nex"), { recursive: true });
  writeFileSync(
    join(box.env.XDG_CONFIG_HOME ?? "", "nex", "config.json"),
    JSON.stringify({ models: { "stub-model": { contextWindow: window, maxOutput: 1024 } } }),
  );
}

const names = (body: ChatBody) => (body.tools ?? []).map((tool) => tool.function.name);

test("on an 8k window a deferred tool is absent until the model loads it, then present and its call works", async (t) => {
  const box = makeSandbox();
  withWindow(box, 8192);
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({ name: "load_tools", args: { names: ["lookup_ticket"] } }),
      openaiToolCall({ name: "lookup_ticket", args: { id: 42 } }),
      openaiText("Ticket 42 is open."),
    ],
  });
  t.after(() => stub.close());
  const result = await runNex(
    ["run", "--yes", "--model", "stub-model", "--base-url", `${stub.url}/v1`, "check ticket 42"],
    {
      cwd: box.workspace,
      env: box.env,
      entry,
    },
  );
  assert.equal(result.code, 0, result.stderr);
  const bodies = stub.requestsTo("/v1/chat/completions").map((r) => r.body as ChatBody);
  assert.equal(bodies.length, 3);
  const [first, second, third] = bodies as [ChatBody, ChatBody, ChatBody];
  assert.ok(!names(first).includes("lookup_ticket"), "no schema before it is loaded");
  assert.ok(names(first).includes("flaky_probe"), "a tool not deferred is sent at once");
  const loader = first.tools?.find((tool) => tool.function.name === "load_tools");
  assert.match(loader?.function.description ?? "", /- lookup_ticket: Looks up a ticket/);
  assert.ok(!JSON.stringify(first.tools).includes("Returns its title"), "only its first line");
  assert.deepEqual(names(second).slice(0, names(first).length), names(first), "prefix kept");
  assert.equal(names(second).at(-1), "lookup_ticket");
  assert.ok(names(third).includes("lookup_ticket"));
  const results = third.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
  assert.match(results[0] ?? "", /Loaded lookup_ticket/);
  assert.match(results[1] ?? "", /Ticket 42: "Crash on empty config" \(open\)/);
});

test("load_tools loads the names that exist beside unknown ones and says which it did not load; a deferred tool's arguments are checked like any tool's", async (t) => {
  const box = makeSandbox();
  withWindow(box, 8192);
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({
        name: "load_tools",
        args: { names: ["lookup_ticket", "no_such_tool", "greet.py", "load_tools"] },
      }),
      openaiToolCall({ name: "lookup_ticket", args: { id: "forty-two" } }),
      openaiText("done"),
    ],
  });
  t.after(() => stub.close());
  const result = await runNex(
    ["run", "--yes", "--model", "stub-model", "--base-url", `${stub.url}/v1`, "check"],
    {
      cwd: box.workspace,
      env: box.env,
      entry,
    },
  );
  assert.equal(result.code, 0, result.stderr);
  const bodies = stub.requestsTo("/v1/chat/completions").map((r) => r.body as ChatBody);
  assert.ok(names(bodies[1] as ChatBody).includes("lookup_ticket"), "loaded beside unknown names");
  const last = bodies.at(-1) as ChatBody;
  const results = last.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
  assert.match(results[0] ?? "", /^Loaded lookup_ticket: call it from your next turn\./);
  assert.match(
    results[0] ?? "",
    /Not loaded: No tool named no_such_tool, greet.py\. Tools you can load: [a-z_, ]*lookup_ticket/,
  );
  assert.match(
    results[0] ?? "",
    /greet\.py is a file name, not a tool: read a file with read_file/,
  );
  assert.match(results[1] ?? "", /`id`/);
  assert.doesNotMatch(results[1] ?? "", /Ticket 42:/);
});

test("on a 128k window every tool is sent at once and there is no load_tools", async (t) => {
  const box = makeSandbox();
  withWindow(box, 131072);
  const stub = await startStubEndpoint({ scripts: [openaiText("hi")] });
  t.after(() => stub.close());
  const result = await runNex(
    ["run", "--model", "stub-model", "--base-url", `${stub.url}/v1`, "hello"],
    {
      cwd: box.workspace,
      env: box.env,
      entry,
    },
  );
  assert.equal(result.code, 0, result.stderr);
  const first = stub.requestsTo("/v1/chat/completions")[0]?.body as ChatBody;
  assert.ok(names(first).includes("lookup_ticket"));
  assert.ok(!names(first).includes("load_tools"));
});

test("a tool that throws answers the model with a clear error, and the session goes on", async (t) => {
  const box = makeSandbox();
  withWindow(box, 8192);
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({ name: "flaky_probe", args: {} }),
      openaiText("It failed; moving on."),
    ],
  });
  t.after(() => stub.close());
  const result = await runNex(
    ["run", "--yes", "--model", "stub-model", "--base-url", `${stub.url}/v1`, "probe"],
    {
      cwd: box.workspace,
      env: box.env,
      entry,
    },
  );
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /It failed; moving on\./);
  const last = stub.requestsTo("/v1/chat/completions").at(-1)?.body as ChatBody;
  const results = last.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
  assert.match(results[0] ?? "", /probe exploded: connection reset/);
});

test("on a 32k window the last tools (chunk_map, arxiv_search, deep_research) are listed by load_tools, not sent, until loaded", async (t) => {
  const box = makeSandbox();
  withWindow(box, 32_768);
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({
        name: "load_tools",
        args: { names: ["chunk_map", "arxiv_search", "deep_research"] },
      }),
      openaiText("loaded"),
    ],
  });
  t.after(() => stub.close());
  const result = await runNex(
    ["run", "--yes", "--model", "stub-model", "--base-url", `${stub.url}/v1`, "go"],
    { cwd: box.workspace, env: box.env },
  );
  assert.equal(result.code, 0, result.stderr);
  const [first, second] = stub
    .requestsTo("/v1/chat/completions")
    .map((r) => r.body as ChatBody) as [ChatBody, ChatBody];
  const loader = first.tools?.find((tool) => tool.function.name === "load_tools");
  for (const name of ["chunk_map", "arxiv_search", "deep_research", "reader"]) {
    assert.ok(!names(first).includes(name), `${name} is not sent before it is loaded`);
    assert.match(loader?.function.description ?? "", new RegExp(`- ${name}: `));
  }
  assert.deepEqual(names(second).slice(-3), ["chunk_map", "arxiv_search", "deep_research"]);
  // Each built-in tool is listed by its own few words, not a sentence cut mid-word; those words are
  // for the listing only and never a field of a tool sent.
  assert.match(loader?.function.description ?? "", /^- arxiv_search: search arXiv papers$/m);
  assert.doesNotMatch(loader?.function.description ?? "", /…/);
  for (const tool of [...(first.tools ?? []), ...(second.tools ?? [])])
    assert.equal("brief" in tool.function, false, tool.function.name);
});
