// A small model told of one problem often fixes it and makes another (Qwen2.5-Coder 0.5B in
// bench/eval: an invented tool, then a real list_dir call with its last brace missing). Each new
// problem is told, within the run's few reminders; a message that ends the run never says the model
// was told what it was not.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText } from "../support/stub-scripts.ts";

const invented = (name: string) => JSON.stringify({ name, arguments: { content: "x" } });
const unclosed = (tool: string) => `{"name": "${tool}", "arguments": {"path": "."}`;
const write = JSON.stringify({ name: "write_file", arguments: { path: "a.txt", content: "a\n" } });

function runArgs(url: string, dataDir: string): string[] {
  return ["run", "--yes", "--model", "m", "--base-url", `${url}/v1`, "--data-dir", dataDir, "go"];
}

test("a real tool with broken JSON right after an invented tool is told its own problem, and the call runs once it parses", async () => {
  const stub = await startStubEndpoint({
    scripts: [
      openaiText(invented("legacyFormat")),
      openaiText(unclosed("list_dir")),
      openaiText(write),
      openaiText("Wrote a.txt."),
    ],
  });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(join(box.workspace, "a.txt"), "utf8"), "a\n");
  const third = JSON.stringify(stub.requestsTo("/v1/chat/completions")[2]?.body);
  assert.match(third, /list_dir call written as JSON text that is not valid JSON/);
  assert.doesNotMatch(result.stderr, /again after nex told it so/);
});

test("when the run's reminders are spent, the end says so, not that the model was told of this very problem", async () => {
  const stub = await startStubEndpoint({
    scripts: [
      openaiText(invented("a.py")),
      openaiText(unclosed("list_dir")),
      openaiText(invented("b.py")),
      openaiText(unclosed("read_file")),
    ],
    handler: () => openaiText("unused"),
  });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.notEqual(result.code, 0);
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 4);
  assert.match(
    result.stderr,
    /a read_file call in JSON that does not parse, after nex had asked it again 3 times this run, so nex ran nothing/,
  );
});

test("a JSON call named by the command it runs, with bash's arguments, runs as that bash call; a name the command does not start with is still an invented tool", async () => {
  const named = JSON.stringify({
    name: "node --version",
    arguments: { command: "node --version > out.txt" },
  });
  const stub = await startStubEndpoint({ scripts: [openaiText(named), openaiText("Done.")] });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /wrote its bash call as JSON text/);
  assert.match(readFileSync(join(box.workspace, "out.txt"), "utf8"), /^v\d+/);

  const other = JSON.stringify({
    name: "node show.js",
    arguments: { command: "bash -c 'node show.js > out.txt'" },
  });
  const second = await startStubEndpoint({ handler: () => openaiText(other) });
  const box2 = makeSandbox();
  const refused = await runNex(runArgs(second.url, box2.dataDir), {
    cwd: box2.workspace,
    env: box2.env,
  });
  await second.close();
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /tool that does not exist \(node show\.js\)/);
});

test("a reply that echoes the tool list (<tools> and tool definitions: Qwen2.5-Coder 0.5B, r11 new-module) is told once, not ended as done; a definition shown in an answer stays an answer", async () => {
  const definition = JSON.stringify({
    type: "function",
    function: { name: "Stack", parameters: { type: "object" } },
  });
  const echo = `\`\`\`xml\n<tools>\n${definition}\n${definition}\n</tools>\n\`\`\``;
  const stub = await startStubEndpoint({
    scripts: [openaiText(echo), openaiText(write), openaiText("Wrote a.txt.")],
  });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(join(box.workspace, "a.txt"), "utf8"), "a\n");
  assert.match(result.stderr, /answered with its tool list/);
  const second = JSON.stringify(stub.requestsTo("/v1/chat/completions")[1]?.body);
  assert.match(second, /your reply was a list of tool definitions, not a tool call or an answer/);

  const shown = `A tool is defined like this:\n\`\`\`json\n${definition}\n\`\`\``;
  const answer = await startStubEndpoint({ scripts: [openaiText(shown)] });
  const box2 = makeSandbox();
  const answered = await runNex(runArgs(answer.url, box2.dataDir), {
    cwd: box2.workspace,
    env: box2.env,
  });
  await answer.close();
  assert.equal(answered.code, 0, answered.stderr);
  assert.equal(answered.stdout.trim(), shown);
  assert.equal(answer.requestsTo("/v1/chat/completions").length, 1);
});
