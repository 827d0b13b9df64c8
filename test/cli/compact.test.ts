// `nex compact` and automatic compaction through the real CLI: the outcome is said once, a refusal
// says why, and what the model needs verbatim (task, todo list, recent files) comes back after it.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { Message } from "../../src/protocol/index.ts";
import { createJournal } from "../../src/session/index.ts";
import { conversation } from "../session/fixtures.ts";
import { makeSandbox, runNex, type Sandbox } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText } from "../support/stub-scripts.ts";

type ChatBody = { messages: Array<{ role: string; content: string | null }>; tools?: unknown[] };

function withWindow(box: Sandbox, window: number): void {
  mkdirSync(join(box.env.XDG_CONFIG_HOME ?? "", "nex"), { recursive: true });
  writeFileSync(
    join(box.env.XDG_CONFIG_HOME ?? "", "nex", "config.json"),
    JSON.stringify({ models: { "stub-model": { contextWindow: window, maxOutput: 2048 } } }),
  );
}

async function seedJournal(box: Sandbox, messages: Message[]): Promise<void> {
  const journal = await createJournal(join(box.dataDir, "nex"), {
    workspace: box.workspace,
    provider: "openai",
    model: "stub-model",
    baseUrl: "http://127.0.0.1:1/v1",
  });
  for (const message of messages) journal.appendMessage(message);
  journal.close();
}

/** Long exchanges of plain text, no tool calls. */
function chatter(pairs: number): Message[] {
  return Array.from({ length: pairs }, (_, i): Message[] => [
    { type: "user", text: `Question ${i}: ${"what about the parser rules? ".repeat(20)}` },
    {
      type: "assistant",
      text: `Answer ${i}: ${"the rules are fine as they are. ".repeat(20)}`,
      toolCalls: [],
    },
  ]).flat();
}

function count(text: string, pattern: RegExp): number {
  return text.match(new RegExp(pattern.source, "g"))?.length ?? 0;
}

test("nex compact says once that there is nothing to compact, and why", async (t) => {
  const box = makeSandbox();
  withWindow(box, 32768);
  await seedJournal(box, [
    { type: "user", text: "hello" },
    { type: "assistant", text: "hi", toolCalls: [] },
  ]);
  const stub = await startStubEndpoint({ handler: () => openaiText("unused") });
  const result = await runNex(["compact", "--last", "--base-url", `${stub.url}/v1`], {
    cwd: box.workspace,
    env: box.env,
  });
  t.after(() => stub.close());
  assert.equal(result.code, 0, result.stderr);
  assert.equal(count(result.stderr, /Nothing to compact: /), 1, result.stderr);
  assert.match(result.stderr, /Nothing to compact: the older part is only ~\d+ tokens/);
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 0);
});

test("nex compact whose summary comes back empty says so once, exits 1, and leaves the session as it was", async (t) => {
  const box = makeSandbox();
  withWindow(box, 16384);
  await seedJournal(box, conversation(60));
  const stub = await startStubEndpoint({
    // Summary requests carry no tools.
    handler: (request) =>
      (request.body as ChatBody).tools?.length ? openaiText("done") : openaiText("   "),
  });
  t.after(() => stub.close());
  const result = await runNex(["compact", "--last", "--base-url", `${stub.url}/v1`], {
    cwd: box.workspace,
    env: box.env,
  });
  assert.equal(result.code, 1, result.stderr);
  assert.equal(count(result.stderr, /Compaction failed/), 1, result.stderr);
  assert.match(result.stderr, /the conversation is unchanged: the model returned an empty summary/);
  const resumed = await runNex(["resume", "--last", "--base-url", `${stub.url}/v1`, "go on"], {
    cwd: box.workspace,
    env: box.env,
  });
  const last = stub.requestsTo("/v1/chat/completions").at(-1)?.body as ChatBody;
  assert.doesNotMatch(JSON.stringify(last.messages), /Summary of the earlier conversation/);
  assert.equal(resumed.code, 0, resumed.stderr);
});

test("after a compaction the task, the recent files (small re-read, large named) come back verbatim, announced in one line", async (t) => {
  const box = makeSandbox();
  withWindow(box, 32768);
  writeFileSync(join(box.workspace, "small.txt"), "SMALL-FILE-CONTENT line one\nline two\n");
  writeFileSync(join(box.workspace, "big.txt"), "B".repeat(40_000));
  const task = "Add a --verbose flag to the CLI and make `npm test` pass; keep the output format.";
  const call = (id: string, name: string, path: string) => ({
    type: "assistant" as const,
    text: "",
    toolCalls: [{ id, name, argumentsText: JSON.stringify({ path }) }],
  });
  const result = (id: string, name: string, content: string) => ({
    type: "tool_result" as const,
    toolCallId: id,
    toolName: name,
    content,
    isError: false,
  });
  await seedJournal(box, [
    { type: "user", text: task },
    call("c1", "read_file", "small.txt"),
    result("c1", "read_file", "SMALL-FILE-CONTENT line one\nline two\n"),
    call("c2", "read_file", "big.txt"),
    result("c2", "read_file", "B".repeat(3000)),
    ...chatter(40),
  ]);
  const stub = await startStubEndpoint({ handler: () => openaiText("We worked on the flag.") });
  const url = `${stub.url}/v1`;
  const compacted = await runNex(["compact", "--last", "--base-url", url], {
    cwd: box.workspace,
    env: box.env,
  });
  t.after(() => stub.close());
  assert.equal(compacted.code, 0, compacted.stderr);
  assert.equal(count(compacted.stderr, /Compacted \d+ earlier messages/), 1, compacted.stderr);
  assert.match(compacted.stderr, /restored the task, 2 recent files/);
  const resumed = await runNex(["resume", "--last", "--base-url", url, "go on"], {
    cwd: box.workspace,
    env: box.env,
  });
  assert.equal(resumed.code, 0, resumed.stderr);
  const last = stub.requestsTo("/v1/chat/completions").at(-1)?.body as ChatBody;
  const sent = last.messages.map((message) => String(message.content)).join("\n");
  assert.match(sent, /Summary of the earlier conversation: We worked on the flag/);
  assert.ok(sent.includes(`<task>\n${task}\n</task>`), "the task verbatim");
  assert.match(sent, /<file path="small.txt">\nSMALL-FILE-CONTENT line one\nline two\n/);
  assert.match(sent, /read them again before changing them\): big\.txt/);
  assert.ok(!sent.includes("B".repeat(5000)), "the large file is named, not re-read");
  // The restored context is background that ends before the user's new prompt, and says the task
  // may be done, so the model does not redo it.
  assert.match(sent, /not a new request.*it may already be done.*do not start it again/s);
  assert.match(sent, /\[nex\] End of restored context\.\n\ngo on$/);
  assert.ok(
    sent.indexOf("<task>") < sent.indexOf("[nex] End of restored context."),
    "the task is inside the note",
  );
});

test("a compaction's request moves neither the context meter nor the cut-prompt warning", async (t) => {
  const box = makeSandbox();
  withWindow(box, 32768);
  await seedJournal(box, conversation(60));
  let overflowed = false;
  const stub = await startStubEndpoint({
    handler: (request) => {
      const body = request.body as ChatBody;
      // The summary request reports a tiny prompt; the task requests report a plausible size.
      if (!body.tools?.length)
        return openaiText("Summary: files were written.", { usage: { input: 900, output: 20 } });
      if (overflowed) return openaiText("Carried on.", { usage: { input: 5000, output: 10 } });
      overflowed = true;
      return {
        type: "reply" as const,
        status: 400,
        body: {
          error: {
            message:
              "This model's maximum context length is 16384 tokens. However, you requested 40000 tokens.",
            code: "context_length_exceeded",
          },
        },
      };
    },
  });
  t.after(() => stub.close());
  const result = await runNex(
    ["resume", "--last", "--json", "--base-url", `${stub.url}/v1`, "carry on"],
    { cwd: box.workspace, env: box.env },
  );
  assert.equal(result.code, 0, result.stderr);
  const events = result.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; inputTokens?: number; message?: string });
  const usage = events.filter((event) => event.type === "usage");
  assert.deepEqual(
    usage.map((event) => event.inputTokens),
    [5000],
    "only the task request's usage reaches the meter",
  );
  assert.equal(events.filter((event) => event.type === "context_fitted").length, 1);
  assert.ok(!events.some((event) => /cuts long prompts/.test(event.message ?? "")));
});
