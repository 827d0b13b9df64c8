import assert from "node:assert/strict";
import { readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { startAcp } from "./acp-client.ts";

const KEY = "sk-test-DO-NOT-LEAK-4242";

test("with an editor that offers fs/read_text_file, the model reads its unsaved buffer, and nex refuses to write over it until it is saved", async () => {
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({ id: "r1", name: "read_file", args: { path: "notes.txt" } }),
      openaiToolCall({
        id: "e1",
        name: "edit_file",
        args: { path: "notes.txt", old_string: "typed but unsaved", new_string: "changed by nex" },
      }),
      openaiText("The file has unsaved changes."),
      openaiToolCall({
        id: "e2",
        name: "edit_file",
        args: { path: "notes.txt", old_string: "typed but unsaved", new_string: "changed by nex" },
      }),
      openaiText("Changed."),
    ],
  });
  const box = makeSandbox();
  const notes = join(box.workspace, "notes.txt");
  writeFileSync(notes, "first line\nsaved text\n");
  let buffer = "first line\ntyped but unsaved\n";
  const run = startAcp({
    cwd: box.workspace,
    env: { ...box.env, OPENAI_API_KEY: KEY },
    args: ["--model", "stub-model", "--base-url", `${stub.url}/v1`, "--data-dir", box.dataDir],
    buffer: (path) => (path === realpathSync(notes) ? buffer : null),
  });
  try {
    await run.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: false } },
    });
    const { sessionId } = await run.agent.request("session/new", {
      cwd: box.workspace,
      mcpServers: [],
    });
    await run.agent.request("session/set_mode", { sessionId, modeId: "auto_edit" });
    const first = await run.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "change the second line" }],
    });
    assert.equal(first.stopReason, "end_turn");
    assert.ok(run.reads.includes(realpathSync(notes)), "the editor was asked for the file");
    // The model saw what the user sees, and was told it is unsaved.
    const afterRead = stub.requestsTo("/v1/chat/completions")[1]?.rawBody ?? "";
    assert.match(afterRead, /typed but unsaved/);
    assert.match(afterRead, /unsaved changes/);
    // The edit was refused: the user's typing is theirs, the disk is untouched.
    const refused = stub.requestsTo("/v1/chat/completions")[2]?.rawBody ?? "";
    assert.match(refused, /not saved; nex does not write over them/);
    assert.equal(readFileSync(notes, "utf8"), "first line\nsaved text\n");

    // The user saves: disk and buffer agree, and the model's earlier read is current.
    writeFileSync(notes, buffer);
    const second = await run.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "saved now, try again" }],
    });
    assert.equal(second.stopReason, "end_turn");
    assert.equal(readFileSync(notes, "utf8"), "first line\nchanged by nex\n");
    buffer = readFileSync(notes, "utf8");
  } finally {
    assert.equal(await run.close(), 0);
    await stub.close();
  }
});

test("an editor that cannot answer fs/read_text_file leaves the disk's text in force; nex's own write is undone by nex undo", async () => {
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({ id: "r1", name: "read_file", args: { path: "a.txt" } }),
      openaiToolCall({
        id: "e1",
        name: "edit_file",
        args: { path: "a.txt", old_string: "one", new_string: "two" },
      }),
      openaiText("Done."),
    ],
  });
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "a.txt"), "one\n");
  const run = startAcp({
    cwd: box.workspace,
    env: { ...box.env, OPENAI_API_KEY: KEY },
    args: ["--model", "stub-model", "--base-url", `${stub.url}/v1`, "--data-dir", box.dataDir],
  });
  try {
    await run.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
    });
    const { sessionId } = await run.agent.request("session/new", {
      cwd: box.workspace,
      mcpServers: [],
    });
    await run.agent.request("session/set_mode", { sessionId, modeId: "auto_edit" });
    const answer = await run.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "one to two" }],
    });
    assert.equal(answer.stopReason, "end_turn");
    assert.ok(run.reads.length > 0);
    assert.equal(readFileSync(join(box.workspace, "a.txt"), "utf8"), "two\n");
    assert.equal(await run.close(), 0);
    const undo = await runNex(["undo", "--data-dir", box.dataDir], {
      cwd: box.workspace,
      env: box.env,
    });
    assert.equal(undo.code, 0, undo.stderr);
    assert.equal(readFileSync(join(box.workspace, "a.txt"), "utf8"), "one\n");
  } finally {
    await run.close();
    await stub.close();
  }
});
