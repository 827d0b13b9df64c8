import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall, status } from "../support/stub-scripts.ts";
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
      ["ask", "auto_edit", "approve_all"],
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
