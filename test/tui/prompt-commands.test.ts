// `!command` and `/init` typed in the real chat, in a pseudo-terminal.
import assert from "node:assert/strict";
import { test } from "node:test";
import { keys } from "../support/pty.ts";
import { openaiText } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";

test("nex chat: !command runs at once, shows its output, and the model sees it with the next prompt", async (t) => {
  const nex = await startNexTui([openaiText("Seen it."), openaiText("Looked around.")], {
    args: ["--yes"],
  });
  t.after(() => nex.close());
  nex.pty.write(`!echo pty-$((6*7))${keys.enter}`);
  await nex.pty.waitFor("pty-42");
  nex.pty.write(`what did it print?${keys.enter}`);
  await nex.pty.waitFor("Seen it.");
  // The first request is the next prompt's: the command asked nothing of the model.
  assert.match(nex.chatRequests()[0]?.rawBody ?? "", /what did it print\?/);
  assert.match(
    nex.chatRequests()[0]?.rawBody ?? "",
    /The user ran `echo pty-\$\(\(6\*7\)\)`[^"]*pty-42/,
  );

  nex.pty.write(`/init${keys.enter}`);
  await nex.pty.waitFor("Looked around.");
  assert.doesNotMatch(nex.pty.history(), /Unknown command \/init/);
  assert.match(nex.chatRequests()[1]?.rawBody ?? "", /write or update AGENTS\.md/);
});
