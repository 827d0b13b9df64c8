// A tool known only by a JSON Schema (as MCP servers describe theirs) enters through the same checks
// as the built-in tools: validation without coercion, permissions, results fitted to the window.
import assert from "node:assert/strict";
import { test } from "node:test";
import { defineJsonSchemaTool, ToolSchemaError } from "../../src/tools/index.ts";
import { host, run, sandbox } from "./helpers.ts";

const issueSchema = {
  type: "object",
  properties: {
    id: { type: "integer", minimum: 1 },
    fields: { type: "array", items: { type: "string" } },
  },
  required: ["id"],
  additionalProperties: false,
};

async function lookupIssue(
  calls: Array<Record<string, unknown>>,
  body = (id: unknown) => `Issue ${id}: crash on start`,
) {
  return defineJsonSchemaTool({
    name: "lookup_issue",
    description: "Fetch an issue by number.",
    inputSchema: issueSchema,
    mutates: false,
    async execute(args) {
      calls.push(args);
      return { isError: false, content: body(args.id) };
    },
  });
}

test("a JSON-Schema tool runs with valid arguments, published with its schema", async () => {
  const calls: Array<Record<string, unknown>> = [];
  const tools = host(sandbox(), { extraTools: [await lookupIssue(calls)] });
  assert.deepEqual(
    tools.specs().find((spec) => spec.name === "lookup_issue"),
    { name: "lookup_issue", description: "Fetch an issue by number.", parameters: issueSchema },
  );
  const out = await run(tools, "lookup_issue", { id: 7, fields: ["title"] });
  assert.equal(out.content, "Issue 7: crash on start");
  assert.deepEqual(calls, [{ id: 7, fields: ["title"] }]);
});

test("its arguments are checked without coercion, and refusals say what to fix", async () => {
  const calls: Array<Record<string, unknown>> = [];
  const tools = host(sandbox(), { extraTools: [await lookupIssue(calls)] });
  const asString = await run(tools, "lookup_issue", { id: "7" });
  assert.equal(asString.code, "invalid_arguments");
  assert.match(asString.content, /`id` must be an integer, got a string/);
  const missing = await run(tools, "lookup_issue", {});
  assert.match(missing.content, /Missing required argument `id`/);
  const extra = await run(tools, "lookup_issue", { id: 1, verbose: true });
  assert.match(extra.content, /Unknown argument `verbose` for lookup_issue/);
  const nested = await run(tools, "lookup_issue", { id: 1, fields: [3] });
  assert.match(nested.content, /`fields\.0` must be string/);
  const nulled = await run(tools, "lookup_issue", { id: null });
  assert.match(nulled.content, /`id` is null; it must be an integer/);
  assert.deepEqual(calls, [], "no invalid call reached the tool");
});

test("permissions, oversized results and faults apply to it as to any tool", async () => {
  const box = sandbox();
  const deploy = await defineJsonSchemaTool({
    name: "deploy",
    description: "Deploy the site.",
    inputSchema: { type: "object", properties: { env: { type: "string" } }, required: ["env"] },
    mutates: "exec",
    summarize: async (args) => `deploy to ${String(args.env)}`,
    async execute() {
      return { isError: false, content: "log line\n".repeat(20_000) };
    },
  });
  const broken = await defineJsonSchemaTool({
    name: "broken",
    description: "Always throws.",
    inputSchema: { type: "object" },
    mutates: false,
    async execute() {
      throw new Error("server went away");
    },
  });
  const tools = host(box, { extraTools: [deploy, broken], outputCap: 4096 });
  const ask = await tools.permission({ id: "1", name: "deploy", args: { env: "prod" }, turn: 1 });
  assert.deepEqual(ask, { type: "ask", summary: "deploy to prod" });
  const out = await run(tools, "deploy", { env: "prod" });
  assert.match(
    out.content,
    /^\[The full result \(180,000 bytes, 20,000 lines\)[^\n]*stored whole as "@results\//,
  );
  assert.ok(Buffer.byteLength(out.content) <= 4096);
  const fault = await run(tools, "broken", {});
  assert.equal(fault.code, "internal");
  assert.match(fault.content, /server went away/);
});

test("a schema that does not compile, or does not describe an object, is refused with the reason", async () => {
  const bad = (inputSchema: Record<string, unknown>) =>
    defineJsonSchemaTool({
      name: "odd",
      description: "",
      inputSchema,
      mutates: false,
      execute: async () => ({ isError: false, content: "" }),
    });
  await assert.rejects(
    bad({ type: "object", properties: { a: { type: "nonsense" } } }),
    ToolSchemaError,
  );
  await assert.rejects(bad({ type: "string" }), /tool arguments must be an object/);
  await assert.rejects(
    async () => host(sandbox(), { extraTools: [await lookupIssue([]), await lookupIssue([])] }),
    /Two tools are named lookup_issue/,
  );
});

test("a schema is compiled by the dialect it declares: 2020-12, 2019-09, draft-07, or none", async () => {
  const dialects = {
    "2020-12": "https://json-schema.org/draft/2020-12/schema",
    "2019-09": "https://json-schema.org/draft/2019-09/schema",
    "draft-07": "http://json-schema.org/draft-07/schema#",
  };
  const defineWith = (inputSchema: Record<string, unknown>) =>
    defineJsonSchemaTool({
      name: "pair",
      description: "Takes a pair.",
      inputSchema: inputSchema as { type: "object" },
      mutates: false,
      async execute(args) {
        return { isError: false, content: JSON.stringify(args) };
      },
    });
  // 2020-12's tuple keyword: a schema newer MCP SDKs emit, refused before as "does not compile".
  const tuple = await defineWith({
    $schema: dialects["2020-12"],
    type: "object",
    properties: { pair: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }] } },
    required: ["pair"],
  });
  assert.deepEqual(tuple.check?.({ pair: ["a", 1] }), { ok: true });
  assert.equal(tuple.check?.({ pair: ["a", "b"] }).ok, false, "the 2020-12 keyword is enforced");
  // 2019-09's unevaluatedProperties, and draft-07's tuple form of items.
  const closed = await defineWith({
    $schema: dialects["2019-09"],
    type: "object",
    properties: { a: { type: "string" } },
    unevaluatedProperties: false,
  });
  assert.equal(closed.check?.({ a: "x", b: 1 }).ok, false);
  const draft7 = await defineWith({
    $schema: dialects["draft-07"],
    type: "object",
    properties: { pair: { type: "array", items: [{ type: "string" }, { type: "integer" }] } },
  });
  assert.equal(draft7.check?.({ pair: ["a", "b"] }).ok, false);
  const none = await defineWith({ type: "object", properties: { a: { type: "string" } } });
  assert.deepEqual(none.check?.({ a: "x" }), { ok: true });
  // Two servers may give different schemas one $id: each compiles.
  for (const id of ["same", "same"]) {
    const withId = await defineWith({ $id: `https://example.com/${id}`, type: "object" });
    assert.deepEqual(withId.check?.({}), { ok: true });
  }
});
