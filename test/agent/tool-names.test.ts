import assert from "node:assert/strict";
import { test } from "node:test";
import { canonicalToolName } from "../../src/agent/tool-names.ts";

const tools = ["read_file", "write_file", "bash"];

test("a tool named with its template's namespace is the session's tool; other names stay as sent", () => {
  assert.equal(canonicalToolName("functions.write_file", tools), "write_file");
  assert.equal(canonicalToolName("default_api.read_file", tools), "read_file");
  assert.equal(canonicalToolName("bash", tools), "bash");
  assert.equal(
    canonicalToolName("functions.rm", tools),
    "functions.rm",
    "an unknown tool stays unknown",
  );
  assert.equal(canonicalToolName("write_file.functions", tools), "write_file.functions");
  assert.equal(canonicalToolName("", tools), "");
  // The tool followed by what it should do (Qwen2.5-Coder 0.5B): the tool is the first word.
  assert.equal(canonicalToolName("bash python3 main.py", tools), "bash");
  assert.equal(canonicalToolName("read_file  stats.py", tools), "read_file");
  assert.equal(canonicalToolName("run tests", tools), "run tests");
  assert.equal(canonicalToolName("bash ", tools), "bash ");
});
