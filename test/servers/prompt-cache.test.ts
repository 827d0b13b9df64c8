// Prompt caching: consecutive requests of a session share their prompt byte for byte up to the new
// messages (both wires); Anthropic gets cache_control breakpoints (at most four) on the stable prefix
// and the conversation's tail; cache reads and writes reach `--json` usage.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { type LoggedRequest, type Script, startStubEndpoint } from "../support/stub-endpoint.ts";
import { anthropicToolUse, openaiToolCall, sse } from "../support/stub-scripts.ts";

const MARK = ',"cache_control":{"type":"ephemeral"}';

const stream = (parts: string[]): Script => ({
  type: "stream",
  status: 200,
  headers: { "content-type": "text/event-stream" },
  parts,
});

function openaiAnswer(text: string, usage: object): Script {
  return stream([
    sse({ choices: [{ index: 0, delta: { role: "assistant", content: text } }] }),
    sse({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
    sse({ choices: [], usage }),
    sse("[DONE]"),
  ]);
}

function anthropicAnswer(text: string, usage: object): Script {
  const event = (data: Record<string, unknown>) => sse(data, data.type as string);
  return stream([
    event({
      type: "message_start",
      message: { id: "msg_1", type: "message", role: "assistant", content: [], usage },
    }),
    event({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
    event({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }),
    event({ type: "content_block_stop", index: 0 }),
    event({
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: 5 },
    }),
    event({ type: "message_stop" }),
  ]);
}

async function session(provider: "openai" | "anthropic", scripts: Script[]) {
  const stub = await startStubEndpoint({ scripts });
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "notes.txt"), "remember the milk\n");
  const anthropic = provider === "anthropic";
  const result = await runNex(
    [
      "run",
      ...(anthropic ? ["--provider", "anthropic", "--model", "claude-sonnet-4-5"] : []),
      ...(anthropic ? [] : ["--model", "m"]),
      "--data-dir",
      box.dataDir,
      "--json",
      "--yes",
      "read notes.txt",
    ],
    {
      cwd: box.workspace,
      env: anthropic
        ? { ...box.env, ANTHROPIC_BASE_URL: stub.url, ANTHROPIC_API_KEY: "k" }
        : { ...box.env, OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: "k" },
    },
  );
  await stub.close();
  const posts = stub.requests.filter(
    (r) => r.path.endsWith("/chat/completions") || r.path.endsWith("/messages"),
  );
  const usage = result.stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((e) => e.type === "usage");
  return { result, posts, usage };
}

/** The prompt of a request as sent: from its system prompt (or messages) to its last message, without the closing bracket. */
function promptText(request: LoggedRequest, withoutMarks: boolean): string {
  const raw = withoutMarks ? request.rawBody.split(MARK).join("") : request.rawBody;
  const start = raw.indexOf(raw.includes('"system":') ? '"system":' : '"messages":[');
  const messages = JSON.stringify((JSON.parse(raw) as { messages: unknown[] }).messages);
  const end = raw.indexOf(messages) + messages.length - 1;
  assert.ok(end > start, "the messages are sent as JSON.stringify makes them");
  return raw.slice(start, end);
}

function toolsText(request: LoggedRequest, withoutMarks: boolean): string {
  const raw = withoutMarks ? request.rawBody.split(MARK).join("") : request.rawBody;
  return JSON.stringify((JSON.parse(raw) as { tools?: unknown }).tools);
}

test("OpenAI wire: two consecutive requests share the prompt byte for byte up to the new messages; cached_tokens reaches --json usage", async () => {
  const { result, posts, usage } = await session("openai", [
    openaiToolCall({ name: "read_file", args: { path: "notes.txt" } }),
    openaiAnswer("It says to remember the milk.", {
      prompt_tokens: 2400,
      completion_tokens: 9,
      total_tokens: 2409,
      prompt_tokens_details: { cached_tokens: 2048 },
    }),
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(posts.length, 2);
  const [first, second] = posts as [LoggedRequest, LoggedRequest];
  const earlier = promptText(first, false);
  assert.ok(
    promptText(second, false).startsWith(earlier),
    "the second request repeats the first one's prompt unchanged, then adds to it",
  );
  assert.equal(toolsText(first, false), toolsText(second, false));
  assert.match(earlier, /Today is \d{4}-\d\d-\d\d\./, "the date is in the system prompt");
  const last = usage.at(-1);
  assert.equal(last?.inputTokens, 2400);
  assert.equal(last?.cacheReadTokens, 2048);
});

test("Anthropic: breakpoints on the system prompt and the conversation's tail (never more than four), a stable prefix, and cache reads and writes in --json usage", async () => {
  const { result, posts, usage } = await session("anthropic", [
    anthropicToolUse({ name: "read_file", input: { path: "notes.txt" } }),
    anthropicAnswer("It says to remember the milk.", {
      input_tokens: 40,
      cache_creation_input_tokens: 300,
      cache_read_input_tokens: 2000,
      output_tokens: 1,
    }),
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(posts.length, 2);
  for (const post of posts) {
    const marks = post.rawBody.split(MARK).length - 1;
    assert.ok(marks >= 2 && marks <= 4, `${marks} breakpoints`);
    const body = post.body as {
      system: { cache_control?: unknown }[];
      messages: { content: { cache_control?: unknown }[] }[];
    };
    assert.deepEqual(body.system.at(-1)?.cache_control, { type: "ephemeral" });
    assert.deepEqual(body.messages.at(-1)?.content.at(-1)?.cache_control, { type: "ephemeral" });
  }
  const [first, second] = posts as [LoggedRequest, LoggedRequest];
  // The markers move with the tail; Anthropic caches the content, not where the marker sits.
  assert.ok(promptText(second, true).startsWith(promptText(first, true)));
  assert.equal(toolsText(first, true), toolsText(second, true));
  const last = usage.at(-1);
  assert.equal(last?.inputTokens, 2340, "the prompt's size counts its cached parts");
  assert.equal(last?.cacheReadTokens, 2000);
  assert.equal(last?.cacheWriteTokens, 300);
});
