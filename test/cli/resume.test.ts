import assert from "node:assert/strict";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createJournal, createTokenEstimator } from "../../src/session/index.ts";
import { conversation } from "../session/fixtures.ts";
import { makeSandbox, runNex, type Sandbox } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";

type ChatBody = { messages: Array<{ role: string; content: string | null }>; max_tokens: number };

function withWindow(box: Sandbox, window: number): void {
  mkdirSync(join(box.env.XDG_CONFIG_HOME ?? "", "nex"), { recursive: true });
  writeFileSync(
    join(box.env.XDG_CONFIG_HOME ?? "", "nex", "config.json"),
    JSON.stringify({ models: { "stub-model": { contextWindow: window, maxOutput: 2048 } } }),
  );
}

/** A journal of `count` synthetic messages for the sandbox's workspace, as an earlier session left it. */
async function seedJournal(box: Sandbox, count: number): Promise<void> {
  const journal = await createJournal(join(box.dataDir, "nex"), {
    workspace: box.workspace,
    provider: "openai",
    model: "stub-model",
    baseUrl: "http://127.0.0.1:1/v1",
  });
  for (const message of conversation(count)) journal.appendMessage(message);
  journal.close();
}

function journals(box: Sandbox): string[] {
  const dir = join(box.dataDir, "nex", "sessions");
  return existsSync(dir) ? readdirSync(dir).map((name) => join(dir, name)) : [];
}

test("resume_truncates_oversized_journal: 500 messages resume into an 8k window with one clear line", async () => {
  const box = makeSandbox();
  withWindow(box, 8192);
  await seedJournal(box, 500);

  const stub = await startStubEndpoint({ scripts: [openaiText("Continuing.")] });
  const result = await runNex(["resume", "--last", "--base-url", `${stub.url}/v1`, "carry on"], {
    cwd: box.workspace,
    env: box.env,
  });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stderr,
    /Journal had 500 messages \(~[\d.]+k tokens\); kept the last \d+ \(~[\d.]+k tokens\) to fit stub-model \(8192\)\./,
  );
  const sent = stub.requestsTo("/v1/chat/completions");
  assert.equal(sent.length, 1);
  const body = sent[0]?.body as ChatBody;
  assert.ok(body.messages.length < 100, `sent ${body.messages.length} messages`);
  const firstAfterSystem = body.messages[1];
  assert.notEqual(
    firstAfterSystem?.role,
    "tool",
    "the kept history never starts with an orphan tool result",
  );
  // Prompt plus output must fit the window. The whole JSON body, punctuation and keys included, counted
  // by a real tokenizer, is an upper bound of the prompt's tokens.
  const promptTokens = createTokenEstimator().countText(sent[0]?.rawBody ?? "");
  assert.ok(
    promptTokens + body.max_tokens <= 8192,
    `prompt ${promptTokens} tokens (as JSON) with max_tokens ${body.max_tokens}`,
  );
  assert.equal(body.messages.at(-1)?.content, "carry on");
});

test("a journal with a torn last line resumes, with a warning, and keeps the conversation", async () => {
  const box = makeSandbox();
  const first = await startStubEndpoint({ scripts: [openaiText("The answer is 42.")] });
  const run = await runNex(
    ["run", "--model", "stub-model", "--base-url", `${first.url}/v1`, "what is the answer?"],
    {
      cwd: box.workspace,
      env: box.env,
    },
  );
  await first.close();
  assert.equal(run.code, 0, run.stderr);
  const [path] = journals(box);
  assert.ok(path);
  appendFileSync(path, '{"v":1,"type":"message","seq":3,"message":{"type":"user","te');

  const second = await startStubEndpoint({ scripts: [openaiText("Still 42.")] });
  const resumed = await runNex(["resume", "--last", "--base-url", `${second.url}/v1`, "and now?"], {
    cwd: box.workspace,
    env: box.env,
  });
  await second.close();
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stderr, /torn|incomplete|skipped/i);
  assert.equal(
    resumed.stderr.match(/last line is incomplete/g)?.length,
    1,
    "the warning is given once",
  );
  const body = second.requestsTo("/v1/chat/completions")[0]?.body as ChatBody;
  const contents = body.messages.map((m) => m.content);
  assert.ok(contents.includes("what is the answer?"));
  assert.ok(contents.includes("The answer is 42."));
  assert.equal(resumed.stdout.trim(), "Still 42.");
});

test("nex sessions lists a session and nex undo restores the workspace before its last turn", async () => {
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "keep.txt"), "original\n");
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({ name: "read_file", args: { path: "keep.txt" } }),
      openaiToolCall({ name: "write_file", args: { path: "keep.txt", content: "changed\n" } }),
      openaiToolCall({ name: "write_file", args: { path: "new.txt", content: "new\n" } }),
      openaiText("Changed keep.txt and created new.txt."),
    ],
  });
  const run = await runNex(
    ["run", "--yes", "--model", "stub-model", "--base-url", `${stub.url}/v1`, "change things"],
    {
      cwd: box.workspace,
      env: box.env,
    },
  );
  await stub.close();
  assert.equal(run.code, 0, run.stderr);
  assert.equal(readFileSync(join(box.workspace, "keep.txt"), "utf8"), "changed\n");

  const listed = await runNex(["sessions"], { cwd: box.workspace, env: box.env });
  assert.equal(listed.code, 0);
  // Each session is named by what it was about: its first prompt, not the model's last words.
  assert.match(listed.stdout, /^ {4}change things$/m);
  assert.ok(listed.stdout.includes(box.workspace));

  const undone = await runNex(["undo", "3"], { cwd: box.workspace, env: box.env });
  assert.equal(undone.code, 0, undone.stderr + undone.stdout);
  assert.equal(readFileSync(join(box.workspace, "keep.txt"), "utf8"), "original\n");
  assert.equal(existsSync(join(box.workspace, "new.txt")), false);
  assert.match(undone.stdout, /keep\.txt/);
});

test("a context-length error compacts once and retries once, and never loops", async () => {
  const box = makeSandbox();
  withWindow(box, 32768);
  await seedJournal(box, 60);
  const overflow = {
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
  const stub = await startStubEndpoint({
    handler: (request) => {
      const body = request.body as { tools?: unknown[] };
      // Summary requests carry no tools; answer them, and overflow every task request.
      return body.tools && body.tools.length > 0
        ? overflow
        : openaiText("Summary: files were written.");
    },
  });
  const result = await runNex(["resume", "--last", "--base-url", `${stub.url}/v1`, "carry on"], {
    cwd: box.workspace,
    env: box.env,
  });
  await stub.close();
  const sent = stub
    .requestsTo("/v1/chat/completions")
    .map((r) => ((r.body as { tools?: unknown[] }).tools?.length ?? 0) > 0);
  const taskRequests = sent.filter(Boolean).length;
  assert.equal(taskRequests, 2, `task requests: ${taskRequests}`);
  assert.ok(sent.length - taskRequests >= 1, "one compaction ran");
  assert.equal(result.code, 1);
  assert.match(result.stderr, /Compacted/);
  assert.match(result.stderr, /context window/);
});

test("nex compact summarises a session through one visible request and the next resume starts from the summary", async () => {
  const box = makeSandbox();
  withWindow(box, 32768);
  await seedJournal(box, 80);
  const stub = await startStubEndpoint({
    handler: () => openaiText("We wrote many files in src/."),
  });
  const compacted = await runNex(["compact", "--last", "--base-url", `${stub.url}/v1`], {
    cwd: box.workspace,
    env: box.env,
  });
  assert.equal(compacted.code, 0, compacted.stderr);
  assert.match(compacted.stderr, /→ request 1/);
  assert.match(compacted.stderr, /Compacted \d+ earlier messages/);
  const summaryRequests = stub.requestsTo("/v1/chat/completions").length;
  assert.ok(summaryRequests >= 1);

  const resumed = await runNex(
    ["resume", "--last", "--base-url", `${stub.url}/v1`, "what did we do?"],
    { cwd: box.workspace, env: box.env },
  );
  await stub.close();
  assert.equal(resumed.code, 0, resumed.stderr);
  const last = stub.requestsTo("/v1/chat/completions").at(-1)?.body as ChatBody;
  assert.match(
    String(last.messages[1]?.content),
    /Summary of the earlier conversation: We wrote many files/,
  );
});

test("the model's todo list is shown as it changes, and survives a compaction and a resume", async () => {
  const box = makeSandbox();
  withWindow(box, 32768);
  await seedJournal(box, 80);
  const todos = [
    { content: "read the parser", status: "completed" },
    { content: "add the --verbose flag", status: "in_progress" },
    { content: "write its test", status: "pending" },
  ];
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({ name: "todo_write", args: { todos } }),
      openaiText("on it"),
      // Long answers after it (each within what max_tokens allows), so the compaction summarises
      // the list away with the older turns.
      // Each sentence differs (its rule's number): one sentence back to back would be a loop
      // that nex cuts (src/providers/turns/unit-loop.ts).
      ...["parser", "lexer", "printer"].map((part) =>
        openaiText(
          `The ${part}, in detail: `.concat(
            Array.from({ length: 480 }, (_, i) => `token rule ${i} and its cases.`).join(" "),
          ),
          { chunkSize: 4000 },
        ),
      ),
    ],
    handler: () => openaiText("We planned the --verbose flag."),
  });
  const url = `${stub.url}/v1`;
  const first = await runNex(["resume", "--last", "--json", "--base-url", url, "plan it"], {
    cwd: box.workspace,
    env: box.env,
  });
  assert.equal(first.code, 0, first.stderr);
  const updated = first.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; items?: unknown })
    .find((event) => event.type === "todo_updated");
  assert.deepEqual(updated?.items, todos);
  for (const part of ["parser", "lexer", "printer"]) {
    const explained = await runNex(["resume", "--last", "--base-url", url, `explain the ${part}`], {
      cwd: box.workspace,
      env: box.env,
    });
    assert.equal(explained.code, 0, explained.stderr);
  }

  const compacted = await runNex(["compact", "--last", "--base-url", url], {
    cwd: box.workspace,
    env: box.env,
  });
  assert.equal(compacted.code, 0, compacted.stderr);
  const resumed = await runNex(["resume", "--last", "--json", "--base-url", url, "go on"], {
    cwd: box.workspace,
    env: box.env,
  });
  await stub.close();
  assert.equal(resumed.code, 0, resumed.stderr);
  const events = resumed.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; items?: unknown });
  assert.deepEqual(events.find((event) => event.type === "todo_updated")?.items, todos);
  const last = stub.requestsTo("/v1/chat/completions").at(-1)?.body as ChatBody;
  const sent = last.messages.map((message) => String(message.content)).join("\n");
  assert.match(sent, /Summary of the earlier conversation/);
  assert.match(
    sent,
    /Your todo list, kept across the compaction:\n\[x\] read the parser\n\[>\] add the --verbose flag\n\[ \] write its test/,
  );
});

test("a compaction's own request is not taken for the conversation's size: no false warning of a cut prompt", async () => {
  const box = makeSandbox();
  withWindow(box, 32768);
  await seedJournal(box, 60);
  let overflowed = false;
  const stub = await startStubEndpoint({
    handler: (request) => {
      const body = request.body as { tools?: unknown[] };
      // The summary request reports a small prompt, as it should: it carries only part of the
      // conversation. The first task request overflows, which starts the compaction.
      if (!body.tools?.length)
        return openaiText("Summary: files were written.", { usage: { input: 900, output: 20 } });
      // No usage report of its own: the stub's default (a dozen tokens) is itself a cut on this window.
      if (overflowed) return openaiText("Carried on.", { usage: null });
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
  const result = await runNex(["resume", "--last", "--base-url", `${stub.url}/v1`, "carry on"], {
    cwd: box.workspace,
    env: box.env,
  });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /Compacted/);
  assert.doesNotMatch(result.stderr, /cuts long prompts/);
});
