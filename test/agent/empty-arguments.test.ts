// Small models fill every parameter a tool lists: Qwen2.5-Coder 1.5B on llama-server sent grep
// `"glob": ""` in three bench/eval runs, was refused ("glob must not be empty") and sent it again.
// An optional argument sent empty ("" or null) where the tool refuses emptiness means "not given".
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { withoutEmptyOptionals, withValuesRead } from "../../src/agent/empty-arguments.ts";
import { makeSandbox, runNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";

function runArgs(url: string, dataDir: string): string[] {
  return ["run", "--yes", "--model", "m", "--base-url", `${url}/v1`, "--data-dir", dataDir, "go"];
}

/** One call in a workspace holding sales.csv, then an answer: the request that carried its result. */
async function secondRequestAfter(name: string, args: Record<string, unknown>): Promise<string> {
  const stub = await startStubEndpoint({
    scripts: [openaiToolCall({ name, args }), openaiText("Done.")],
  });
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "sales.csv"), "region,amount\nnorth,12\nsouth,3\n");
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  return JSON.stringify(stub.requestsTo("/v1/chat/completions")[1]?.body);
}

test('grep with optional "glob": "" and "path": null runs as grep without them, and its matches reach the model', async () => {
  const second = await secondRequestAfter("grep", {
    pattern: "north",
    glob: "",
    path: null,
    ignore_case: null,
  });
  assert.match(second, /sales\.csv:2: north,12/);
  assert.doesNotMatch(second, /must not be empty|is null/);
});

test("a required argument sent empty is still refused with what to change", async () => {
  const stub = await startStubEndpoint({
    scripts: [openaiToolCall({ name: "grep", args: { pattern: "" } }), openaiText("ok")],
  });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const second = JSON.stringify(stub.requestsTo("/v1/chat/completions")[1]?.body);
  assert.match(second, /grep was not run/);
});

test("only empties the schema refuses are dropped: a nullable or length-free optional keeps its value", () => {
  const schema = {
    type: "object",
    required: ["pattern"],
    properties: {
      pattern: { type: "string", minLength: 1 },
      glob: { type: "string", minLength: 1 },
      note: { type: "string" },
      limit: { type: ["integer", "null"] },
      path: { type: "string", minLength: 1 },
    },
  };
  assert.deepEqual(
    withoutEmptyOptionals(schema, { pattern: "", glob: "", note: "", limit: null, path: null }),
    { args: { pattern: "", note: "", limit: null }, dropped: ["glob", "path"] },
  );
  assert.equal(withoutEmptyOptionals(schema, { pattern: "x", glob: "*.py" }), null);
  assert.equal(withoutEmptyOptionals(schema, { pattern: "x", unknown: "" }), null);
});

test("a JSON Schema keyword echoed into the arguments (additionalProperties) is dropped unless the tool has such a parameter", () => {
  const schema = { type: "object", properties: { path: { type: "string", minLength: 1 } } };
  assert.deepEqual(withoutEmptyOptionals(schema, { path: "src", additionalProperties: false }), {
    args: { path: "src" },
    dropped: ["additionalProperties"],
  });
  assert.equal(
    withoutEmptyOptionals(
      { properties: { additionalProperties: { type: "boolean" } } },
      { additionalProperties: true },
    ),
    null,
  );
  assert.equal(
    withoutEmptyOptionals(schema, { path: "src", type: "py" }),
    null,
    "other unknowns stay refused",
  );
});

test("arguments that are the tool's parameter schema, not values, give no argument; a parameter named like a keyword keeps its value", () => {
  const schema = { type: "object", properties: { path: { type: "string", minLength: 1 } } };
  // Qwen2.5-Coder 0.5B, add-method-py: list_dir's schema sent as list_dir's arguments.
  const echoed = { type: "object", required: ["path"], properties: { path: { type: "string" } } };
  assert.deepEqual(withoutEmptyOptionals(schema, echoed), {
    args: {},
    dropped: ["type", "required", "properties"],
  });
  const typed = { type: "object", properties: { type: { type: "string" } } };
  assert.equal(withoutEmptyOptionals(typed, { type: "object" }), null);
  assert.equal(withoutEmptyOptionals(schema, { type: "object", path: "src" }), null);
});

test("list_dir with an echoed additionalProperties runs and lists the folder", async () => {
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({ name: "list_dir", args: { path: ".", additionalProperties: false } }),
      openaiText("Listed."),
    ],
  });
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "utils.js"), "export const a = 1;\n");
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const second = JSON.stringify(stub.requestsTo("/v1/chat/completions")[1]?.body);
  assert.match(second, /utils\.js/);
  assert.doesNotMatch(second, /Unknown argument/);
});

test("a number or truth value written as a string is read as the value it spells where the schema wants that value, and only there", () => {
  const schema = {
    type: "object",
    properties: {
      path: { type: "string" },
      offset: { type: "integer" },
      ratio: { type: "number" },
      all: { type: "boolean" },
      label: { type: ["string", "integer"] },
    },
  };
  assert.deepEqual(
    withValuesRead(schema, { path: "1", offset: "12", ratio: "-0.5", all: "true", label: "7" }),
    { path: "1", offset: 12, ratio: -0.5, all: true, label: "7" },
  );
  for (const offset of ["1e3", "01", " 1", "1.5", "ten", "", "0x10", "9".repeat(16)])
    assert.equal(withValuesRead(schema, { offset }), null, JSON.stringify(offset));
  assert.equal(withValuesRead(schema, { all: "yes" }), null);
  assert.equal(withValuesRead(schema, { offset: 3 }), null, "a number stays as it came");
});

test('read_file with "offset": "2" and "limit": "1" as strings (r14 csv-answer) reads line 2, not a refusal', async () => {
  const second = await secondRequestAfter("read_file", {
    path: "sales.csv",
    offset: "2",
    limit: "1",
  });
  assert.match(second, /north,12/);
  assert.doesNotMatch(second, /south,3|must be an integer/);
});
