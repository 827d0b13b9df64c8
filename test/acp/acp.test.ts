import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox } from "../support/cli.ts";
import { everythingServer } from "../support/mcp-servers.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall, sse, status } from "../support/stub-scripts.ts";
import { agentText, startAcp } from "./acp-client.ts";

const KEY = "sk-test-DO-NOT-LEAK-4242";

function nexArgs(url: string, dataDir: string, ...rest: string[]): string[] {
  return ["--model", "stub-model", "--base-url", `${url}/v1`, "--data-dir", dataDir, ...rest];
}

test("initialize answers protocol 1 with what nex really handles; a new session offers nex's permission modes", async () => {
  const stub = await startStubEndpoint({ scripts: [openaiText("Hello from nex.")] });
  const box = makeSandbox();
  const run = startAcp({
    cwd: box.workspace,
    env: { ...box.env, OPENAI_API_KEY: KEY },
    args: nexArgs(stub.url, box.dataDir),
  });
  try {
    const init = await run.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    assert.equal(init.protocolVersion, 1);
    assert.equal(init.agentCapabilities?.loadSession, true);
    assert.equal(init.agentCapabilities?.promptCapabilities?.embeddedContext, true);
    assert.equal(init.agentCapabilities?.promptCapabilities?.image, false);
    const session = await run.agent.request("session/new", { cwd: box.workspace, mcpServers: [] });
    assert.ok(session.sessionId);
    assert.equal(session.modes?.currentModeId, "ask");
    assert.deepEqual(
      session.modes?.availableModes.map((mode) => mode.id),
      ["ask", "auto_edit", "approve_all", "plan"],
    );
    const answer = await run.agent.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "say hello" }],
    });
    assert.equal(answer.stopReason, "end_turn");
    assert.equal(agentText(run.updates), "Hello from nex.");
    assert.ok(!JSON.stringify(run.updates).includes(KEY));
  } finally {
    assert.equal(await run.close(), 0);
    await stub.close();
  }
});

/** A started `nex acp` with one new session in `box.workspace`. */
async function opened(
  scripts: Parameters<typeof startStubEndpoint>[0],
  answer?: Parameters<typeof startAcp>[0]["answer"],
  extraArgs: string[] = [],
) {
  const stub = await startStubEndpoint(scripts);
  const box = makeSandbox();
  const run = startAcp({
    cwd: box.workspace,
    env: { ...box.env, OPENAI_API_KEY: KEY },
    args: nexArgs(stub.url, box.dataDir, ...extraArgs),
    ...(answer ? { answer } : {}),
  });
  await run.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await run.agent.request("session/new", {
    cwd: box.workspace,
    mcpServers: [],
  });
  return { stub, box, run, sessionId };
}

test("an edit the editor allows streams as a tool call with kind, title, location and a diff of old and new text", async () => {
  const original = "alpha\nbeta\ngamma\n";
  const { stub, box, run, sessionId } = await opened(
    {
      scripts: [
        openaiToolCall({ id: "call_read", name: "read_file", args: { path: "notes.txt" } }),
        openaiToolCall({
          id: "call_edit",
          name: "edit_file",
          args: { path: "notes.txt", old_string: "beta", new_string: "BETA" },
        }),
        openaiText("Changed beta."),
      ],
    },
    () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }),
  );
  writeFileSync(join(box.workspace, "notes.txt"), original);
  try {
    const answer = await run.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "capitalise beta" }],
    });
    assert.equal(answer.stopReason, "end_turn");
    assert.equal(readFileSync(join(box.workspace, "notes.txt"), "utf8"), "alpha\nBETA\ngamma\n");
    const updates = run.updates.map((n) => n.update);
    const read = updates.find(
      (u) => u.sessionUpdate === "tool_call" && u.toolCallId === "call_read",
    );
    assert.ok(read && read.sessionUpdate === "tool_call");
    assert.equal(read.kind, "read");
    assert.equal(read.title, "Read notes.txt");
    assert.deepEqual(read.locations, [{ path: join(box.workspace, "notes.txt") }]);
    // The question shows the proposed change, and offers nex's four answers.
    assert.equal(run.permissions.length, 1);
    const question = run.permissions[0];
    assert.equal(question?.toolCall.toolCallId, "call_edit");
    assert.equal(question?.toolCall.kind, "edit");
    assert.deepEqual(
      question?.options.map((o) => o.kind),
      ["allow_once", "allow_always", "reject_once", "reject_always"],
    );
    assert.deepEqual(question?.toolCall.content, [
      { type: "diff", path: join(box.workspace, "notes.txt"), oldText: "beta", newText: "BETA" },
    ]);
    const edit = updates.find(
      (u) => u.sessionUpdate === "tool_call" && u.toolCallId === "call_edit",
    );
    assert.ok(edit && edit.sessionUpdate === "tool_call");
    assert.equal(edit.kind, "edit");
    assert.equal(edit.title, "Edit notes.txt");
    const done = updates.find(
      (u) =>
        u.sessionUpdate === "tool_call_update" &&
        u.toolCallId === "call_edit" &&
        u.status === "completed",
    );
    assert.ok(done && done.sessionUpdate === "tool_call_update");
    assert.deepEqual(done.locations, [{ path: join(box.workspace, "notes.txt"), line: 2 }]);
    assert.deepEqual(done.content, [
      {
        type: "diff",
        path: join(box.workspace, "notes.txt"),
        oldText: original,
        newText: "alpha\nBETA\ngamma\n",
      },
    ]);
    assert.equal(agentText(run.updates), "Changed beta.");
  } finally {
    await run.close();
    await stub.close();
  }
});

test("an edit the editor rejects is not made; the call ends failed and the model is told", async () => {
  const { stub, box, run, sessionId } = await opened({
    scripts: [
      openaiToolCall({
        id: "call_write",
        name: "write_file",
        args: { path: "new.txt", content: "hi\n" },
      }),
      openaiText("Understood, I left it."),
    ],
  });
  try {
    const answer = await run.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "write new.txt" }],
    });
    assert.equal(answer.stopReason, "end_turn");
    assert.equal(run.permissions.length, 1);
    assert.deepEqual(run.permissions[0]?.toolCall.content, [
      { type: "diff", path: join(box.workspace, "new.txt"), oldText: null, newText: "hi\n" },
    ]);
    assert.throws(() => readFileSync(join(box.workspace, "new.txt")), /ENOENT/);
    const failed = run.updates
      .map((n) => n.update)
      .find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "call_write");
    assert.ok(failed && failed.sessionUpdate === "tool_call_update");
    assert.equal(failed.status, "failed");
    const second = stub.requestsTo("/v1/chat/completions")[1]?.rawBody ?? "";
    assert.match(second, /rejected it in the editor/);
  } finally {
    await run.close();
    await stub.close();
  }
});

test("a failed prompt is a JSON-RPC error with nex's message, never end_turn; a cut answer stops with max_tokens", async () => {
  const { stub, run, sessionId } = await opened({
    scripts: [
      status(400, { body: { error: { message: "messages[3].content: expected a string" } } }),
      openaiText("This answer is cut", { finishReason: "length" }),
    ],
  });
  try {
    await assert.rejects(
      run.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] }),
      (error: Error & { code?: number }) => {
        assert.equal(error.code, -32603);
        assert.match(error.message, /expected a string/);
        return true;
      },
    );
    const cut = await run.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "go on" }],
    });
    assert.equal(cut.stopReason, "max_tokens");
    assert.match(agentText(run.updates), /cut off/);
  } finally {
    await run.close();
    await stub.close();
  }
});

test("session/cancel mid-stream stops the turn at once and the prompt answers cancelled", async () => {
  const { stub, run, sessionId } = await opened({
    scripts: [
      openaiText("Working on it, step one of many", {
        finishReason: null,
        includeDone: false,
        end: "hang",
      }),
      openaiText("Fresh answer."),
    ],
  });
  try {
    const prompt = run.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "a long task" }],
    });
    await run.waitForUpdate((n) => n.update.sessionUpdate === "agent_message_chunk");
    await run.agent.notify("session/cancel", { sessionId });
    assert.equal((await prompt).stopReason, "cancelled");
    // The session goes on: the next prompt is answered.
    const next = await run.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "again" }],
    });
    assert.equal(next.stopReason, "end_turn");
  } finally {
    await run.close();
    await stub.close();
  }
});

test("session/cancel while the editor is asked answers the prompt cancelled and runs nothing", async () => {
  let asked: () => void = () => {};
  const question = new Promise<void>((done) => {
    asked = done;
  });
  let cancelled: () => void = () => {};
  const cancelSent = new Promise<void>((done) => {
    cancelled = done;
  });
  const { stub, box, run, sessionId } = await opened(
    {
      scripts: [
        openaiToolCall({ id: "call_rm", name: "bash", args: { command: "touch made-by-bash" } }),
        openaiText("never sent"),
      ],
    },
    async () => {
      asked();
      // The editor keeps the question open until the cancel; then it answers cancelled, as ACP asks.
      await cancelSent;
      return { outcome: { outcome: "cancelled" } };
    },
  );
  try {
    const prompt = run.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "make a file" }],
    });
    await question;
    await run.agent.notify("session/cancel", { sessionId });
    cancelled();
    assert.equal((await prompt).stopReason, "cancelled");
    assert.throws(() => readFileSync(join(box.workspace, "made-by-bash")), /ENOENT/);
    assert.equal(stub.requestsTo("/v1/chat/completions").length, 1);
  } finally {
    await run.close();
    await stub.close();
  }
});

test("set_mode switches nex's permission mode: auto_edit writes without asking; an unknown mode is an error", async () => {
  const { stub, box, run, sessionId } = await opened({
    scripts: [
      openaiToolCall({
        id: "call_w",
        name: "write_file",
        args: { path: "auto.txt", content: "auto\n" },
      }),
      openaiText("Written."),
    ],
  });
  try {
    await assert.rejects(
      run.agent.request("session/set_mode", { sessionId, modeId: "yolo" }),
      (error: Error & { code?: number }) =>
        error.code === -32602 && /no mode "yolo"/.test(error.message),
    );
    await run.agent.request("session/set_mode", { sessionId, modeId: "auto_edit" });
    const answer = await run.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "write auto.txt" }],
    });
    assert.equal(answer.stopReason, "end_turn");
    assert.equal(run.permissions.length, 0);
    assert.equal(readFileSync(join(box.workspace, "auto.txt"), "utf8"), "auto\n");
  } finally {
    await run.close();
    await stub.close();
  }
});

test("always allow and always reject are remembered for the session", async () => {
  const { stub, box, run, sessionId } = await opened(
    {
      scripts: [
        openaiToolCall({ id: "c1", name: "bash", args: { command: "touch one" } }),
        openaiToolCall({ id: "c2", name: "bash", args: { command: "touch one two" } }),
        openaiToolCall({ id: "c3", name: "write_file", args: { path: "w.txt", content: "w\n" } }),
        openaiToolCall({ id: "c4", name: "write_file", args: { path: "v.txt", content: "v\n" } }),
        openaiText("Done."),
      ],
    },
    (request) => ({
      outcome: {
        outcome: "selected",
        optionId: request.toolCall.kind === "execute" ? "allow_always" : "reject_always",
      },
    }),
    ["--sandbox", "off"],
  );
  try {
    const answer = await run.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    assert.equal(answer.stopReason, "end_turn");
    // One question for the command (then remembered), one for the first write (then refused unasked).
    assert.deepEqual(
      run.permissions.map((p) => p.toolCall.toolCallId),
      ["c1", "c3"],
    );
    readFileSync(join(box.workspace, "one"));
    readFileSync(join(box.workspace, "two"));
    assert.throws(() => readFileSync(join(box.workspace, "w.txt")), /ENOENT/);
    assert.throws(() => readFileSync(join(box.workspace, "v.txt")), /ENOENT/);
  } finally {
    await run.close();
    await stub.close();
  }
});

test("session/load resumes a saved session: its conversation is replayed as updates, then it goes on", async () => {
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({
        id: "call_todo",
        name: "todo_write",
        args: { todos: [{ content: "Plan the work", status: "in_progress" }] },
      }),
      openaiText("First answer."),
      openaiText("Second answer."),
    ],
  });
  const box = makeSandbox();
  const env = { ...box.env, OPENAI_API_KEY: KEY };
  const first = startAcp({ cwd: box.workspace, env, args: nexArgs(stub.url, box.dataDir) });
  await first.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await first.agent.request("session/new", {
    cwd: box.workspace,
    mcpServers: [],
  });
  await first.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "remember the word pelican" }],
  });
  const plan = first.updates.map((n) => n.update).find((u) => u.sessionUpdate === "plan");
  assert.deepEqual(plan && plan.sessionUpdate === "plan" ? plan.entries : null, [
    { content: "Plan the work", status: "in_progress", priority: "medium" },
  ]);
  assert.equal(await first.close(), 0);

  const second = startAcp({ cwd: box.workspace, env, args: nexArgs(stub.url, box.dataDir) });
  try {
    const init = await second.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    assert.equal(init.agentCapabilities?.loadSession, true);
    // The editor's history lists nex's saved sessions of this folder.
    const listed = await second.agent.request("session/list", { cwd: box.workspace });
    assert.deepEqual(
      listed.sessions.map((s) => [s.sessionId, s.cwd]),
      [[sessionId, box.workspace]],
    );
    assert.match(listed.sessions[0]?.title ?? "", /First answer/);
    const loaded = await second.agent.request("session/load", {
      sessionId,
      cwd: box.workspace,
      mcpServers: [],
    });
    assert.equal(loaded.modes?.currentModeId, "ask");
    // Every replayed update arrived before the load's answer.
    const kinds = second.updates.map((n) => n.update.sessionUpdate);
    assert.deepEqual(kinds, [
      "user_message_chunk",
      "tool_call",
      "tool_call_update",
      "agent_message_chunk",
      "plan",
    ]);
    assert.equal(agentText(second.updates, "user_message_chunk"), "remember the word pelican");
    assert.equal(agentText(second.updates), "First answer.");
    assert.ok(second.updates.every((n) => n.sessionId === sessionId));
    const next = await second.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "which word?" }],
    });
    assert.equal(next.stopReason, "end_turn");
    const sent = stub.requestsTo("/v1/chat/completions")[2]?.rawBody ?? "";
    assert.match(sent, /pelican/);
    assert.match(sent, /First answer/);
    await assert.rejects(
      second.agent.request("session/load", {
        sessionId: "no-such-session",
        cwd: box.workspace,
        mcpServers: [],
      }),
      /no-such-session/,
    );
  } finally {
    assert.equal(await second.close(), 0);
    await stub.close();
  }
});

test("malformed messages get JSON-RPC errors and the agent keeps serving; stdout carries only JSON-RPC", async () => {
  const stub = await startStubEndpoint({ scripts: [openaiText("Still here.")] });
  const box = makeSandbox();
  const child = (await import("node:child_process")).spawn(
    process.execPath,
    [
      join(import.meta.dirname, "..", "..", "bin", "nex.js"),
      "acp",
      ...nexArgs(stub.url, box.dataDir),
    ],
    {
      cwd: box.workspace,
      env: { ...box.env, OPENAI_API_KEY: KEY },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  let stdout = "";
  const lines: Record<string, unknown>[] = [];
  const waiters: { id: unknown; done: (m: Record<string, unknown>) => void }[] = [];
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
    const parts = stdout.split("\n");
    stdout = parts.pop() ?? "";
    for (const line of parts) {
      const message = JSON.parse(line) as Record<string, unknown>;
      lines.push(message);
      for (const w of [...waiters]) if (w.id === message.id) w.done(message);
    }
  });
  const reply = (id: unknown) =>
    new Promise<Record<string, unknown>>((done) => {
      const found = lines.find((m) => m.id === id && ("result" in m || "error" in m));
      if (found) done(found);
      else waiters.push({ id, done });
    });
  const send = (text: string) => child.stdin.write(`${text}\n`);
  const exited = new Promise<number | null>((done) => child.on("close", done));
  try {
    send("this is not json");
    const parse = await reply(null);
    assert.equal((parse.error as { code: number }).code, -32700);
    send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "session/new",
        params: { cwd: box.workspace, mcpServers: [] },
      }),
    );
    assert.ok((await reply(1)).error, "a request before initialize is refused");
    send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "initialize",
        params: { protocolVersion: 1 },
      }),
    );
    assert.equal(((await reply(2)).result as { protocolVersion: number }).protocolVersion, 1);
    send(
      JSON.stringify({ jsonrpc: "2.0", id: 3, method: "session/prompt", params: { sessionId: 5 } }),
    );
    assert.equal(((await reply(3)).error as { code: number }).code, -32602);
    send(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "session/nonsense", params: {} }));
    assert.equal(((await reply(4)).error as { code: number }).code, -32601);
    send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 5,
        method: "session/prompt",
        params: { sessionId: "nope", prompt: [] },
      }),
    );
    assert.equal(((await reply(5)).error as { code: number }).code, -32002);
    send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 6,
        method: "session/new",
        params: { cwd: "relative/dir", mcpServers: [] },
      }),
    );
    assert.equal(((await reply(6)).error as { code: number }).code, -32602);
    send(
      JSON.stringify([
        { jsonrpc: "2.0", id: 7, method: "initialize", params: { protocolVersion: 1 } },
      ]),
    );
    send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 8,
        method: "session/new",
        params: { cwd: box.workspace, mcpServers: [] },
      }),
    );
    const sessionId = ((await reply(8)).result as { sessionId: string }).sessionId;
    send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 9,
        method: "session/prompt",
        params: { sessionId, prompt: [{ type: "image", data: "AAAA", mimeType: "image/png" }] },
      }),
    );
    assert.match(((await reply(9)).error as { message: string }).message, /image/);
    send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 10,
        method: "session/prompt",
        params: { sessionId, prompt: [{ type: "text", text: "hi" }] },
      }),
    );
    assert.equal(((await reply(10)).result as { stopReason: string }).stopReason, "end_turn");
    assert.ok(lines.every((m) => m.jsonrpc === "2.0"));
  } finally {
    child.stdin.end();
    assert.equal(await exited, 0);
    await stub.close();
  }
});

test("nex's secrets never reach a notification or a permission question, not even inside a file's diff", async () => {
  const { stub, box, run, sessionId } = await opened(
    {
      scripts: [
        openaiToolCall({ id: "r", name: "read_file", args: { path: "config.env" } }),
        openaiToolCall({
          id: "w",
          name: "write_file",
          args: { path: "config.env", content: "MODE=dev\nNEW=1\n" },
        }),
        openaiText("Rewrote it."),
      ],
    },
    () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }),
  );
  writeFileSync(join(box.workspace, "config.env"), `MODE=dev\nOPENAI_API_KEY=${KEY}\n`);
  try {
    const answer = await run.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "clean the config" }],
    });
    assert.equal(answer.stopReason, "end_turn");
    const diff = run.updates
      .map((n) => n.update)
      .find(
        (u) =>
          u.sessionUpdate === "tool_call_update" &&
          u.toolCallId === "w" &&
          u.status === "completed",
      );
    assert.ok(diff && diff.sessionUpdate === "tool_call_update");
    assert.equal(diff.content?.[0]?.type, "diff", "the write is shown as a diff");
    const everything = JSON.stringify([run.updates, run.permissions]);
    assert.ok(!everything.includes(KEY), "the key must not reach the editor");
  } finally {
    await run.close();
    await stub.close();
  }
});

test("links and embedded files in a prompt reach the model as context", async () => {
  const { stub, box, run, sessionId } = await opened({ scripts: [openaiText("Seen.")] });
  try {
    const answer = await run.agent.request("session/prompt", {
      sessionId,
      prompt: [
        { type: "text", text: "explain these" },
        { type: "resource_link", name: "main.ts", uri: `file://${join(box.workspace, "main.ts")}` },
        {
          type: "resource",
          resource: {
            uri: `file://${join(box.workspace, "draft.md")}`,
            text: "# Draft in the editor",
          },
        },
      ],
    });
    assert.equal(answer.stopReason, "end_turn");
    const sent = stub.requestsTo("/v1/chat/completions")[0]?.rawBody ?? "";
    assert.match(sent, /explain these/);
    assert.ok(sent.includes(join(box.workspace, "main.ts")));
    assert.match(sent, /# Draft in the editor/);
  } finally {
    await run.close();
    await stub.close();
  }
});

test("SIGTERM stops a running prompt, releases the session and exits 143; the session loads again", async () => {
  const { stub, box, run, sessionId } = await opened({
    scripts: [
      openaiText("Thinking about it", { finishReason: null, includeDone: false, end: "hang" }),
      openaiText("Back again."),
    ],
  });
  const prompt = run.agent
    .request("session/prompt", { sessionId, prompt: [{ type: "text", text: "a long one" }] })
    .catch((error: Error) => error);
  await run.waitForUpdate((n) => n.update.sessionUpdate === "agent_message_chunk");
  run.child.kill("SIGTERM");
  const code = await run.exited();
  await prompt;
  if (code !== 143) await stub.close();
  assert.equal(code, 143, run.stderr());
  const again = startAcp({
    cwd: box.workspace,
    env: { ...box.env, OPENAI_API_KEY: KEY },
    args: nexArgs(stub.url, box.dataDir),
  });
  try {
    await again.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    await again.agent.request("session/load", { sessionId, cwd: box.workspace, mcpServers: [] });
    assert.equal(agentText(again.updates, "user_message_chunk"), "a long one");
    assert.doesNotMatch(again.stderr(), /took over|still running/i);
  } finally {
    await again.close();
    await stub.close();
  }
});

test("a model's refusal, or a filter's, ends the prompt with stopReason refusal and shows why", async () => {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sse({
      id: "chatcmpl-r",
      object: "chat.completion.chunk",
      created: 0,
      model: "stub-model",
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  const { stub, run, sessionId } = await opened({
    scripts: [
      {
        type: "stream",
        parts: [
          chunk({ role: "assistant", content: null }),
          chunk({ refusal: "I can't help with that." }),
          chunk({}, "stop"),
          "data: [DONE]\n\n",
        ],
      },
      openaiText("Here is how to", { finishReason: "content_filter" }),
    ],
  });
  try {
    const answer = await run.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "something forbidden" }],
    });
    assert.equal(answer.stopReason, "refusal");
    assert.equal(agentText(run.updates), "I can't help with that.");
    const filtered = await run.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "try again" }],
    });
    assert.equal(filtered.stopReason, "refusal");
    assert.match(agentText(run.updates), /content filter/);
  } finally {
    await run.close();
    await stub.close();
  }
});

test("the turn limit ends the prompt with stopReason max_turn_requests and says how to go on", async () => {
  const { stub, run, sessionId } = await opened(
    {
      scripts: [
        openaiToolCall({ id: "l1", name: "list_dir", args: {} }),
        openaiToolCall({ id: "l2", name: "glob", args: { pattern: "*" } }),
      ],
    },
    undefined,
    ["--max-turns", "1"],
  );
  try {
    const answer = await run.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "look around" }],
    });
    assert.equal(answer.stopReason, "max_turn_requests");
    assert.match(agentText(run.updates), /\[nex\]/);
  } finally {
    await run.close();
    await stub.close();
  }
});

test("an editor that shows notices gets nex's sentences as notices, not as the agent's words", async () => {
  const stub = await startStubEndpoint({
    scripts: [openaiText("This answer is cut", { finishReason: "length" })],
  });
  const box = makeSandbox();
  const run = startAcp({
    cwd: box.workspace,
    env: { ...box.env, OPENAI_API_KEY: KEY },
    args: nexArgs(stub.url, box.dataDir),
  });
  try {
    await run.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: { session: { notices: {} } },
    });
    const { sessionId } = await run.agent.request("session/new", {
      cwd: box.workspace,
      mcpServers: [],
    });
    const answer = await run.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    assert.equal(answer.stopReason, "max_tokens");
    assert.equal(agentText(run.updates), "This answer is cut");
    const notice = run.updates.map((n) => n.update).find((u) => u.sessionUpdate === "notice");
    assert.ok(notice && notice.sessionUpdate === "notice");
    assert.equal(notice.severity, "warning");
    assert.match(notice.title, /cut off/);
  } finally {
    await run.close();
    await stub.close();
  }
});

test("MCP servers the editor passes start with the session, and their tools run through nex's checks", async () => {
  const server = everythingServer() as { command: string; args: string[] };
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({ name: "mcp__everything__echo", args: { message: "from the editor" } }),
      openaiText("done"),
    ],
  });
  const box = makeSandbox();
  const run = startAcp({
    cwd: box.workspace,
    env: { ...box.env, OPENAI_API_KEY: KEY },
    args: nexArgs(stub.url, box.dataDir, "--mode", "approve_all"),
  });
  try {
    const init = await run.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    assert.deepEqual(init.agentCapabilities?.mcpCapabilities, { http: true, sse: true });
    const session = await run.agent.request("session/new", {
      cwd: box.workspace,
      mcpServers: [{ name: "everything", command: server.command, args: server.args, env: [] }],
    });
    const answer = await run.agent.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "echo something" }],
    });
    assert.equal(answer.stopReason, "end_turn");
    const second = JSON.stringify(stub.requestsTo("/v1/chat/completions")[1]?.body ?? {});
    assert.match(second, /Echo: from the editor/);
  } finally {
    await run.close();
    await stub.close();
  }
});
