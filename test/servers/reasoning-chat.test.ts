// `/reasoning effort X` in the real chat changes what the next request sends.
import assert from "node:assert/strict";
import { test } from "node:test";
import { openaiText } from "../support/stub-scripts.ts";
import { startNexTui } from "../tui/cli-harness.ts";
import { typeAndSubmit } from "../tui/tui-harness.ts";

test("nex chat: /reasoning effort high sends reasoning_effort from the next request; off stops it", async (t) => {
  const nex = await startNexTui([openaiText("first"), openaiText("second"), openaiText("third")]);
  t.after(() => nex.close());
  const ask = async (text: string, until: RegExp | string) => {
    await typeAndSubmit(nex.pty, text);
    return nex.pty.waitFor(until);
  };
  await ask("hello", /first/);
  await ask("/reasoning effort high", /Reasoning effort high: sent as reasoning_effort/);
  await ask("again", /second/);
  await ask("/reasoning effort off", /server's default for m \(nothing is sent\)/);
  await ask("once more", /third/);
  const sent = nex.chatRequests().map((r) => (r.body as Record<string, unknown>).reasoning_effort);
  assert.deepEqual(sent, [undefined, "high", undefined]);
});
