// Model text never drives the user's terminal, in the chat as in headless mode (the fault suite's
// scenarios-process.ts covers `nex run`), and text that needs joiners shows whole.
import assert from "node:assert/strict";
import { test } from "node:test";
import { openaiText } from "../support/stub-scripts.ts";
import { startNexTui } from "../tui/cli-harness.ts";

const ESC = "\x1b";

test("the chat shows model text without its clipboard write, title change or bidi override, and keeps joiners", async (t) => {
  const answer =
    `Here.${ESC}]52;c;cm0gLXJmIH4K${ESC}\\${ESC}]0;owned${ESC}\\\u009b31m \u202eevil\u202c ` +
    "👩\u200d💻 می\u200cخواهم done";
  const nex = await startNexTui([openaiText(answer)]);
  t.after(() => nex.close());
  nex.pty.write("say something\r");
  await nex.pty.waitFor("done");
  const raw = nex.pty.output();
  for (const [what, bytes] of [
    ["an OSC 52 clipboard write", `${ESC}]52`],
    ["an OSC 0 title change", `${ESC}]0;owned`],
    ["an 8-bit CSI", "\u009b"],
    ["a right-to-left override", "\u202e"],
  ]) {
    assert.ok(!raw.includes(bytes as string), `the terminal received ${what}`);
  }
  assert.ok(raw.includes("👩\u200d💻"), "the ZWJ emoji sequence was broken");
  assert.ok(raw.includes("می\u200cخواهم"), "the Persian ZWNJ was stripped");
});
