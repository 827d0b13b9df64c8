// Typing while the model works, in the real chat: Enter queues a message, Alt+Enter sends a steering
// note; both reach the model with the next tool result (steering first), a message taken back with ↑
// is never sent, and what waits when the turn is interrupted comes back to the prompt.
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { keys } from "../support/pty.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";
import { spinnerShown } from "./tui-harness.ts";

interface WireMessage {
  role: string;
  content: unknown;
}

// The command waits for a file the test creates once the chat shows what it typed: no timing guess.
const waitForGo = "while [ ! -f go ]; do sleep 0.05; done; echo went";

test("Enter queues and Alt+Enter steers while a turn runs: both ride with the next tool result, steering first, and a message taken back is never sent", async (t) => {
  const nex = await startNexTui(
    [openaiToolCall({ name: "bash", args: { command: waitForGo } }), openaiText("Both noted.")],
    { args: ["--yes"], cols: 100, rows: 40 },
  );
  t.after(() => nex.close());
  nex.pty.write(`run the slow thing${keys.enter}`);
  await nex.pty.waitFor("while [ ! -f go ]");
  nex.pty.write(`drop this one${keys.enter}`);
  await nex.pty.waitFor("queued 1 › drop this one");
  // ↑ on the empty prompt takes it back into the editor; then it is erased.
  nex.pty.write(keys.up);
  await nex.pty.waitUntil(
    (s) => /│ › +drop this one/.test(s) && !s.includes("queued 1 › drop this one"),
    "the message back in the prompt",
  );
  nex.pty.write("\x15"); // Ctrl-U: erase the line
  await nex.pty.waitUntil((s) => !s.includes("drop this one"), "the line erased");
  nex.pty.write(`also check the README${keys.enter}`);
  nex.pty.write(`use tabs${keys.altEnter}`);
  await nex.pty.waitFor("steer › use tabs");
  await nex.pty.waitFor("queued 1 › also check the README");
  writeFileSync(join(nex.workspace, "go"), "");
  await nex.pty.waitFor("Both noted.");
  const second = nex.chatRequests()[1];
  assert.ok(second, "a second request was sent");
  const messages = (second.body as { messages: WireMessage[] }).messages;
  const roles = messages.map((m) => m.role);
  for (let i = 1; i < roles.length; i++)
    assert.ok(!(roles[i] === "user" && roles[i - 1] === "user"), `two user messages: ${roles}`);
  const all = JSON.stringify(messages);
  assert.doesNotMatch(all, /drop this one/, "the message taken back was never sent");
  const result = JSON.stringify(messages.find((m) => m.role === "tool")?.content);
  assert.match(result, /went[\s\S]*steering note[\s\S]*use tabs[\s\S]*also check the README/);
  assert.equal(nex.chatRequests().length, 2, "no extra prompt: both joined the running one");
});

test("a message still waiting when the turn is interrupted comes back to the prompt, not sent", async (t) => {
  const nex = await startNexTui(
    [openaiToolCall({ name: "bash", args: { command: waitForGo } }), openaiText("unused")],
    { args: ["--yes"], cols: 100, rows: 40 },
  );
  t.after(() => nex.close());
  nex.pty.write(`run the slow thing${keys.enter}`);
  await nex.pty.waitFor("while [ ! -f go ]");
  nex.pty.write(`and then the tests${keys.enter}`);
  await nex.pty.waitFor("queued 1 › and then the tests");
  nex.pty.write(keys.esc);
  await nex.pty.waitFor("your waiting messages");
  await nex.pty.waitUntil((s) => !spinnerShown(s), "spinner off");
  const screen = nex.pty.screen();
  assert.match(screen, /│ › and then the tests/);
  assert.doesNotMatch(screen, /queued 1 ›/);
  assert.equal(nex.chatRequests().length, 1, "nothing more was sent");
  assert.ok(!existsSync(join(nex.workspace, "go")));
});

test("a message typed during an answer with no tool call is sent as the next prompt when the answer ends", async (t) => {
  const lines = Array.from({ length: 60 }, (_, i) => `Line ${i + 1} of the answer.\n`);
  const nex = await startNexTui(
    [openaiText(lines.join(""), { chunkSize: 20, delayMs: 30 }), openaiText("Second answer.")],
    { cols: 100, rows: 40 },
  );
  t.after(() => nex.close());
  nex.pty.write(`explain${keys.enter}`);
  await nex.pty.waitFor("Line 2 of the answer.");
  nex.pty.write(`and now the summary${keys.enter}`);
  await nex.pty.waitFor("Second answer.");
  const requests = nex.chatRequests();
  assert.equal(requests.length, 2);
  const messages = (
    (requests[1]?.body as { messages?: WireMessage[] } | undefined)?.messages ?? []
  ).filter((m) => m.role !== "system");
  assert.deepEqual(
    messages.map((m) => m.role),
    ["user", "assistant", "user"],
  );
  assert.equal(messages[2]?.content, "and now the summary");
});
