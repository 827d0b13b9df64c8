// /status, /export and the way back in, in the real chat in a real pseudo-terminal.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { keys } from "../support/pty.ts";
import { json, openaiText } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";

test("/status says where the window came from, /export writes the transcript, exit prints the resume command", async (t) => {
  const nex = await startNexTui([openaiText("The answer is **42**.")], { cols: 100, rows: 40 });
  t.after(() => nex.close());
  nex.pty.write(`what is the answer${keys.enter}`);
  await nex.pty.waitFor("The answer is 42.");
  nex.pty.write(`/status${keys.enter}`);
  const status = await nex.pty.waitFor(/^window\s+32,768 tokens, assumed/m);
  t.diagnostic(`/status:\n${status}`);
  assert.match(status, /^model\s+m \(openai\) at 127\.0\.0\.1:\d+/m);
  assert.match(status, /^commands\s+sandbox /m);
  assert.match(status, /^search\s+(ripgrep \(\S+\)|JavaScript \(ripgrep is not on PATH)/m);
  assert.match(status, /^file\s+\S+\.jsonl$/m);
  nex.pty.write(`/export talk.md${keys.enter}`);
  await nex.pty.waitFor("Wrote the conversation to");
  const exported = readFileSync(join(nex.workspace, "talk.md"), "utf8");
  assert.match(exported, /## You\n\nwhat is the answer\n\n## nex\n\nThe answer is \*\*42\*\*\./);
  nex.pty.write(`/export talk.md${keys.enter}`);
  await nex.pty.waitFor("already exists; nothing was written");
  nex.stub.setRoute("GET /v1/models", json({ data: [{ id: "m" }, { id: "qwen3-coder" }] }));
  nex.pty.write(`/model${keys.enter}`);
  const models = await nex.pty.waitFor("Choose a model");
  assert.match(models, /› m \(in use\)/);
  assert.match(models, /qwen3-coder/);
  nex.pty.write(keys.esc);
  await nex.pty.waitFor("Model unchanged: still m.");
  nex.pty.write(`/exit${keys.enter}`);
  assert.equal(await nex.pty.exited, 0);
  assert.match(nex.pty.output(), /Resume this session with: nex resume \d{8}-\d{6}-\w+/);
});
