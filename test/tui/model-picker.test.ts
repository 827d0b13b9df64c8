// `/model` in the real chat: a picker of the models the endpoint lists (GET /v1/models) with the one
// in use marked, and the config's other endpoints, which say how to use them; Enter switches, Esc
// keeps the model.
import assert from "node:assert/strict";
import { test } from "node:test";
import { keys } from "../support/pty.ts";
import { openaiText } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";

const idle = (screen: string) => screen.includes("Ask nex");
const config = {
  endpoints: { "other-box": { baseUrl: "http://127.0.0.1:9/v1", model: "far-model" } },
};

test("/model at 120×40 lists the endpoint's models and switches to the one chosen", async (t) => {
  const nex = await startNexTui([openaiText("Hello from the big one.")], {
    cols: 120,
    rows: 40,
    models: ["m", "big-model", "tiny-model"],
    config,
  });
  t.after(() => nex.close());
  nex.pty.write(`/model${keys.enter}`);
  const picker = await nex.pty.waitFor("Choose a model");
  assert.match(picker, /› m \(in use\)/);
  assert.match(picker, /big-model/);
  assert.match(picker, /tiny-model/);
  assert.match(picker, /endpoint other-box \(start nex with -e other-box\)/);
  nex.pty.write(keys.down);
  await nex.pty.waitFor("› big-model");
  nex.pty.write(keys.enter);
  await nex.pty.waitFor("Model is now big-model");
  await nex.pty.waitUntil(
    (s) => idle(s) && /⏵ ask .*· big-model ·/.test(s),
    "the status bar on big-model",
  );
  nex.pty.write(`hi${keys.enter}`);
  await nex.pty.waitFor("Hello from the big one.");
  assert.match(nex.chatRequests()[0]?.rawBody ?? "", /"model":"big-model"/);
});

test("/model at 80×30: Esc keeps the model; another endpoint says how to start nex there", async (t) => {
  const nex = await startNexTui([], { cols: 80, rows: 30, models: ["m", "big-model"], config });
  t.after(() => nex.close());
  nex.pty.write(`/model${keys.enter}`);
  await nex.pty.waitFor("Choose a model");
  nex.pty.write(keys.esc);
  await nex.pty.waitFor("Model unchanged: still m.");
  await nex.pty.waitUntil(idle, "the prompt back");
  nex.pty.write(`/model${keys.enter}`);
  await nex.pty.waitFor("Choose a model");
  nex.pty.write(keys.down);
  await nex.pty.waitFor("› big-model");
  nex.pty.write(keys.down);
  await nex.pty.waitFor("› endpoint other-box");
  nex.pty.write(keys.enter);
  const said = await nex.pty.waitFor("Start nex with -e other-box");
  assert.match(said.replace(/\s+/g, " "), /this chat stays on m\./);
});
