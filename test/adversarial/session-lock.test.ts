// Two nex processes on one session: the second is told who holds it and sends nothing; the journal stays
// one conversation, which the next resume loads whole. A holder killed outright does not block anyone.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createJournal } from "../../src/session/index.ts";
import { conversation } from "../session/fixtures.ts";
import { makeSandbox, runNex, type Sandbox, startNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, type Script } from "../support/stub-scripts.ts";

type ChatBody = { messages: Array<{ role: string; content: string | null }> };

function withWindow(box: Sandbox): void {
  mkdirSync(join(box.env.XDG_CONFIG_HOME ?? "", "nex"), { recursive: true });
  writeFileSync(
    join(box.env.XDG_CONFIG_HOME ?? "", "nex", "config.json"),
    JSON.stringify({ models: { "stub-model": { contextWindow: 200_000, maxOutput: 4096 } } }),
  );
}

/** A session of `count` messages for the sandbox's workspace, as an earlier run left it. */
async function seedSession(box: Sandbox, count: number): Promise<string> {
  const journal = await createJournal(join(box.dataDir, "nex"), {
    workspace: box.workspace,
    provider: "openai",
    model: "stub-model",
    baseUrl: "http://127.0.0.1:1/v1",
  });
  for (const message of conversation(count)) journal.appendMessage(message);
  journal.close();
  return journal.meta.id;
}

function lockFiles(box: Sandbox): string[] {
  const dir = join(box.dataDir, "nex", "locks");
  return existsSync(dir) ? readdirSync(dir) : [];
}

function messageSeqs(box: Sandbox, id: string): number[] {
  const text = readFileSync(join(box.dataDir, "nex", "sessions", `${id}.jsonl`), "utf8");
  return text
    .split("\n")
    .filter((l) => l.includes('"type":"message"'))
    .map((l) => (JSON.parse(l) as { seq: number }).seq);
}

test("a second `nex resume --last` while the first holds the session is refused, names the holder, and sends nothing", async () => {
  const box = makeSandbox();
  withWindow(box);
  const id = await seedSession(box, 40);

  let arrived!: () => void;
  const firstRequestArrived = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  let release!: (script: Script) => void;
  const held = new Promise<Script>((resolve) => {
    release = resolve;
  });
  const stub = await startStubEndpoint({
    handler: (_request, index) => {
      if (index === 0) {
        arrived();
        return held;
      }
      return openaiText(`Answer ${index}.`);
    },
  });
  const base = ["--base-url", `${stub.url}/v1`, "--model", "stub-model"];
  try {
    const first = startNex(["resume", "--last", ...base, "first task"], {
      cwd: box.workspace,
      env: box.env,
    });
    await Promise.race([
      firstRequestArrived,
      first.done.then((r) => assert.fail(`the first nex ended early: ${r.stderr}`)),
    ]);

    const second = await runNex(["resume", "--last", ...base, "second task"], {
      cwd: box.workspace,
      env: box.env,
    });
    assert.equal(second.code, 3, second.stderr);
    assert.match(
      second.stderr,
      new RegExp(`another nex \\(pid ${first.child.pid}\\) is using session ${id}`),
    );
    assert.match(second.stderr, /nex sessions/);
    assert.equal(stub.requests.length, 1, "the refused nex sent no request");

    release(openaiText("First answer."));
    const firstResult = await first.done;
    assert.equal(firstResult.code, 0, firstResult.stderr);
    assert.deepEqual(lockFiles(box), [], "the lock is gone once the holder exits");

    const third = await runNex(["resume", "--last", ...base, "third task"], {
      cwd: box.workspace,
      env: box.env,
    });
    assert.equal(third.code, 0, third.stderr);
    assert.match(third.stderr, /Journal has 42 messages .*all fit/);
    assert.doesNotMatch(third.stderr, /damaged|kept the last|omitted/);
    const body = stub.requests.at(-1)?.body as ChatBody;
    const sent = body.messages.filter((m) => m.role !== "system");
    // A seeded conversation that ends with a user message goes on the wire as one user turn with
    // "first task" (Chat Completions servers want turns to alternate).
    const endsWithUser = conversation(40).at(-1)?.type === "user";
    assert.equal(sent.length, endsWithUser ? 42 : 43, "the whole conversation and the new prompt");
    assert.match(String(sent.at(-3)?.content), /first task$/);
    assert.equal(sent.at(-1)?.content, "third task");
    assert.deepEqual(
      messageSeqs(box, id),
      Array.from({ length: 44 }, (_, i) => i + 1),
      "one writer: numbers run 1..n",
    );
  } finally {
    release(openaiText("late"));
    await stub.close();
  }
});

test("a nex killed while it held the session does not block the next one, which says it took over", async () => {
  const box = makeSandbox();
  withWindow(box);
  const id = await seedSession(box, 10);
  let arrived!: () => void;
  const firstRequestArrived = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const stub = await startStubEndpoint({
    handler: (_request, index) => {
      if (index === 0) {
        arrived();
        return { type: "hang" };
      }
      return openaiText("Resumed.");
    },
  });
  const base = ["--base-url", `${stub.url}/v1`, "--model", "stub-model"];
  try {
    const first = startNex(["resume", "--last", ...base, "first task"], {
      cwd: box.workspace,
      env: box.env,
    });
    await firstRequestArrived;
    first.child.kill("SIGKILL");
    await first.done;
    assert.ok(lockFiles(box).includes(`${id}.lock`), "SIGKILL left the lock behind");

    const next = await runNex(["resume", "--last", ...base, "next task"], {
      cwd: box.workspace,
      env: box.env,
    });
    assert.equal(next.code, 0, next.stderr);
    assert.match(next.stderr, new RegExp(`pid ${first.child.pid}, which is no longer running`));
    assert.doesNotMatch(next.stderr, /damaged/);
  } finally {
    await stub.close();
  }
});
