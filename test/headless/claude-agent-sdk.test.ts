// Drives nex through the official Claude Agent SDK, as an orchestrator built on it would: the SDK
// spawns nex in place of Claude Code, writes stream-json to its stdin and parses what nex prints.
import assert from "node:assert/strict";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { type Options, query, type SDKMessage } from "@anthropic-ai/claude-agent-sdk";
import { makeSandbox } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { hang, openaiText, openaiToolCall, type Script } from "../support/stub-scripts.ts";

const nexBin = resolve(import.meta.dirname, "..", "..", "bin", "nex.js");

/** A stub endpoint and a wrapper executable the SDK can start in place of `claude`. */
async function setUp(scripts: Script[]) {
  const stub = await startStubEndpoint({ scripts });
  const box = makeSandbox();
  const wrapper = join(box.workspace, "..", "nex-as-claude");
  // What a user would write: nex with its endpoint and data folder, then whatever the SDK passes.
  writeFileSync(
    wrapper,
    `#!/bin/sh\nexec "${process.execPath}" "${nexBin}" --base-url "${stub.url}/v1" --data-dir "${box.dataDir}" "$@"\n`,
  );
  chmodSync(wrapper, 0o755);
  const options: Options = {
    pathToClaudeCodeExecutable: wrapper,
    model: "stub-model",
    cwd: box.workspace,
    env: { ...box.env, OPENAI_API_KEY: "sk-sdk-test" },
  };
  return { stub, box, options };
}

async function collect(messages: AsyncIterable<SDKMessage>, onEach?: (m: SDKMessage) => void) {
  const seen: SDKMessage[] = [];
  for await (const message of messages) {
    seen.push(message);
    onEach?.(message);
  }
  return seen;
}

test("the Claude Agent SDK drives nex: init, assistant tool_use, the canUseTool callback, the tool_result and one success result", async () => {
  const { stub, box, options } = await setUp([
    openaiToolCall({
      name: "write_file",
      args: { path: "notes.txt", content: "hello\n" },
      text: "Writing it.",
    }),
    openaiText("notes.txt is written."),
  ]);
  const asked: Array<{ tool: string; input: Record<string, unknown> }> = [];
  const messages = await collect(
    query({
      prompt: "write notes.txt",
      options: {
        ...options,
        canUseTool: async (tool, input) => {
          asked.push({ tool, input });
          return { behavior: "allow", updatedInput: input };
        },
      },
    }),
  );
  await stub.close();
  const types = messages.map((m) => (m.type === "system" ? `system/${m.subtype}` : m.type));
  assert.deepEqual(types, ["system/init", "assistant", "user", "assistant", "result"]);
  const init = messages[0] as Extract<SDKMessage, { type: "system"; subtype: "init" }>;
  assert.equal(init.model, "stub-model");
  assert.equal(init.cwd, box.workspace);
  assert.ok(init.tools.includes("write_file"));
  const assistant = messages[1] as Extract<SDKMessage, { type: "assistant" }>;
  assert.deepEqual(
    assistant.message.content.map((block) => block.type),
    ["text", "tool_use"],
  );
  assert.deepEqual(asked, [
    { tool: "write_file", input: { path: "notes.txt", content: "hello\n" } },
  ]);
  assert.equal(readFileSync(join(box.workspace, "notes.txt"), "utf8"), "hello\n");
  const result = messages.at(-1) as Extract<SDKMessage, { type: "result" }>;
  assert.equal(result.subtype, "success");
  assert.equal(result.is_error, false);
  assert.equal(result.subtype === "success" ? result.result : null, "notes.txt is written.");
  assert.equal(result.num_turns, 2);
  assert.equal(result.session_id, init.session_id);
  assert.deepEqual(result.permission_denials, []);
});

test("a canUseTool denial reaches the model as a refusal, nothing is written, and the result lists the denial", async () => {
  const { stub, options } = await setUp([
    openaiToolCall({ name: "bash", args: { command: "rm -rf build" } }),
    openaiText("I was not allowed to delete build."),
  ]);
  const messages = await collect(
    query({
      prompt: "clean up",
      options: {
        ...options,
        canUseTool: async () => ({ behavior: "deny", message: "not on this branch" }),
      },
    }),
  );
  await stub.close();
  const toolResult = messages.find((m) => m.type === "user");
  assert.match(JSON.stringify(toolResult), /not on this branch/);
  const result = messages.at(-1) as Extract<SDKMessage, { type: "result" }>;
  assert.equal(result.type, "result");
  assert.deepEqual(
    result.permission_denials.map((d) => [d.tool_name, d.tool_input]),
    [["bash", { command: "rm -rf build" }]],
  );
  // The model's second request carries the refusal.
  assert.match(
    JSON.stringify(stub.requestsTo("/v1/chat/completions")[1]?.body),
    /not on this branch/,
  );
});

test("an SDK interrupt stops nex mid-request: the SDK reports the interrupted result and nex exits", async () => {
  const { stub, options } = await setUp([hang()]);
  const q = query({ prompt: "take your time", options });
  const seen: SDKMessage[] = [];
  try {
    // The SDK turns an error result into a rejection carrying its words.
    await assert.rejects(
      collect(q, (message) => {
        seen.push(message);
        // The request is in flight (the stub never answers) once the endpoint has it.
        if (message.type === "system") void waitForRequest(stub).then(() => q.interrupt());
      }),
      /interrupted/,
    );
  } finally {
    await stub.close();
  }
  assert.equal(seen[0]?.type, "system");
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 1);
});

test("flags the SDK passes that nex cannot honour are refused in words the SDK shows", async () => {
  const { stub, options } = await setUp([openaiText("never sent")]);
  await assert.rejects(
    collect(query({ prompt: "go", options: { ...options, maxBudgetUsd: 1 } })),
    /--max-budget-usd is not supported: nex knows no prices/,
  );
  await stub.close();
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 0);
});

async function waitForRequest(stub: { requestsTo(path: string): unknown[] }): Promise<void> {
  while (stub.requestsTo("/v1/chat/completions").length === 0)
    await new Promise((r) => setTimeout(r, 20));
}

test("the SDK's systemPrompt and outputFormat reach nex: the instructions are sent and the result carries structured_output", async () => {
  const { stub, options } = await setUp([openaiText('{"verdict":"ok"}')]);
  const messages = await collect(
    query({
      prompt: "judge it",
      options: {
        ...options,
        systemPrompt: { type: "preset", preset: "claude_code", append: "Judge task 7 only." },
        outputFormat: {
          type: "json_schema",
          schema: {
            type: "object",
            required: ["verdict"],
            properties: { verdict: { type: "string" } },
          },
        },
      },
    }),
  );
  await stub.close();
  const body = stub.requestsTo("/v1/chat/completions")[0]?.body as {
    messages: Array<{ role: string; content: unknown }>;
  };
  assert.match(String(body.messages[0]?.content), /Judge task 7 only\.$/);
  // The SDK sends the prompt on stdin: the schema is added to it there too.
  assert.match(JSON.stringify(body.messages[1]), /judge it.*valid against this JSON Schema/);
  const result = messages.at(-1) as Extract<SDKMessage, { type: "result"; subtype: "success" }>;
  assert.equal(result.subtype, "success");
  assert.deepEqual(result.structured_output, { verdict: "ok" });
});
