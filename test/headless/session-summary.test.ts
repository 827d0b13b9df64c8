// The session summary through real processes: after five answered prompts (served by `nex --chat`)
// the session's model writes `<id>.summary.md` beside the journal, redacted; `nex sessions show`
// prints it, and the next handler's first prompt starts from it.
import assert from "node:assert/strict";
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex, startNex } from "../support/cli.ts";
import { scratchDir } from "../support/scratch-dir.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall, status } from "../support/stub-scripts.ts";

const KEY = "sk-test-DO-NOT-LEAK-7171";

test("session summary: written every five answered prompts, redacted, shown by nex sessions show, read by the next handler", async () => {
  const stub = await startStubEndpoint({
    handler: (request) => {
      if (!request.path.endsWith("/chat/completions")) return status(404);
      const body = JSON.stringify(request.body);
      if (body.includes("running summary of a coding session"))
        return openaiText(`The user asked for five answers; all were given. Key seen: ${KEY}.`);
      return openaiText("ok");
    },
  });
  const box = makeSandbox();
  const chat = scratchDir("nex-chat-");
  const env = { ...box.env, OPENAI_API_KEY: KEY };
  const common = [
    "--model",
    "stub-model",
    "--base-url",
    `${stub.url}/v1`,
    "--data-dir",
    box.dataDir,
  ];
  const send = (id: number) =>
    appendFileSync(
      join(chat, "inbox.jsonl"),
      `${JSON.stringify({ id, role: "user", content: `message ${id}`, request_id: `r${id}` })}\n`,
    );
  for (let id = 1; id <= 5; id++) send(id);
  const sessions = join(box.dataDir, "sessions");
  const summaryFile = () =>
    existsSync(sessions)
      ? readdirSync(sessions).find((name) => name.endsWith(".summary.md"))
      : undefined;
  const first = startNex(["--chat", chat, ...common], { cwd: box.workspace, env });
  const start = Date.now();
  while (!summaryFile() && Date.now() - start < 60_000) await new Promise((r) => setTimeout(r, 50));
  first.child.kill("SIGTERM");
  await first.done;
  const name = summaryFile();
  assert.ok(name, "a summary beside the journal");
  const text = readFileSync(join(sessions, name as string), "utf8");
  assert.match(text, /five answers/);
  assert.doesNotMatch(text, /DO-NOT-LEAK/);

  const id = (name as string).replace(/\.summary\.md$/, "");
  const shown = await runNex(["sessions", "show", id, "--data-dir", box.dataDir], {
    cwd: box.workspace,
    env,
  });
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, new RegExp(`session ${id}[\\s\\S]*Summary[\\s\\S]*five answers`));

  send(6);
  const second = startNex(["--chat", chat, ...common], { cwd: box.workspace, env });
  const outbox = () => readFileSync(join(chat, "outbox.jsonl"), "utf8").trim().split("\n").length;
  while (outbox() < 6 && Date.now() - start < 120_000) await new Promise((r) => setTimeout(r, 50));
  second.child.kill("SIGTERM");
  await second.done;
  await stub.close();
  const last = JSON.stringify(stub.requestsTo("/v1/chat/completions").at(-1)?.body);
  assert.match(
    last,
    /summary nex kept of this session so far[\s\S]*five answers[\s\S]*message 6|message 6[\s\S]*summary nex kept[\s\S]*five answers/,
  );
});

test("session summary: a delegated sub-agent starts from the parent's summary, cut to a small share, before its task", {
  timeout: 120_000,
}, async () => {
  const stub = await startStubEndpoint({
    handler: (request) => {
      if (!request.path.endsWith("/chat/completions")) return status(404);
      const body = JSON.stringify(request.body);
      if (body.includes("running summary of its work so far")) return openaiText("child report");
      // The parent, back with the delegate's result.
      if (body.includes('"role":"tool"')) return openaiText("parent done");
      if (body.includes("delegate the count"))
        return openaiToolCall({ name: "delegate", args: { task: "count the files" } });
      return openaiText("ok");
    },
  });
  const box = makeSandbox();
  const env = { ...box.env, OPENAI_API_KEY: "k" };
  const common = ["--yes", "--model", "stub-model", "--base-url", `${stub.url}/v1`];
  common.push("--data-dir", box.dataDir);
  const first = await runNex(["run", ...common, "hello"], { cwd: box.workspace, env });
  if (first.code !== 0) await stub.close();
  assert.equal(first.code, 0, first.stderr);
  const sessions = join(box.dataDir, "sessions");
  const journal = readdirSync(sessions).find((name) => name.endsWith(".jsonl")) ?? "";
  const id = journal.replace(/\.jsonl$/, "");
  // The summary nex would have written: its start matters, its end is over a child's share.
  writeFileSync(
    join(sessions, `${id}.summary.md`),
    `PARENT-CONTEXT: the user is migrating the build to esbuild.\n${"padding ".repeat(1000)}TAIL-MARK\n`,
  );
  const second = await runNex(["resume", id, ...common, "delegate the count"], {
    cwd: box.workspace,
    env,
  });
  await stub.close();
  assert.equal(second.code, 0, second.stderr);
  const child = stub
    .requestsTo("/v1/chat/completions")
    .map((request) => JSON.stringify(request.body))
    .find((body) => body.includes("running summary of its work so far"));
  assert.ok(child, "the child's request carries the summary");
  assert.match(
    child,
    /PARENT-CONTEXT[\s\S]*rest of the summary is left out[\s\S]*Your task:\\ncount the files/,
  );
  assert.doesNotMatch(child, /TAIL-MARK/);
  assert.ok((child.match(/padding /g) ?? []).length < 520, "cut to at most 4 KiB");
});
