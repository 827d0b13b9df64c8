// `/undo list` and `/rewind` in the real chat number the same prompts the same way, and the undo
// list shows each prompt's first words.
import assert from "node:assert/strict";
import { test } from "node:test";
import { keys } from "../support/pty.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";

const idle = (screen: string) => screen.includes("Ask nex");

test("/undo list names each step by its prompt's /rewind number and first words", async (t) => {
  const nex = await startNexTui(
    [
      openaiText("Just talking."),
      openaiToolCall({ name: "write_file", args: { path: "a.txt", content: "a\n" } }),
      openaiText("Wrote a."),
      openaiToolCall({ name: "write_file", args: { path: "b.txt", content: "b\n" } }),
      openaiText("Wrote b."),
    ],
    { args: ["--yes"], cols: 80, rows: 30 },
  );
  t.after(() => nex.close());
  for (const [prompt, answer] of [
    ["hello there", "Just talking."],
    ["please write the first file", "Wrote a."],
    ["now write the second file", "Wrote b."],
  ]) {
    nex.pty.write(`${prompt}${keys.enter}`);
    await nex.pty.waitFor(answer as string);
    await nex.pty.waitUntil(idle, "the prompt back");
  }
  nex.pty.write(`/undo list${keys.enter}`);
  await nex.pty.waitFor("/undo N undoes the newest N");
  const undoList = await nex.pty.waitUntil(idle, "the prompt back");
  assert.match(undoList, /^ 1\. prompt 3: "now write the second file" · b\.txt$/m, undoList);
  assert.match(undoList, /^ 2\. prompt 2: "please write the first file" · a\.txt$/m, undoList);
  nex.pty.write(`/rewind 3${keys.enter}`);
  const plan = await nex.pty.waitFor(
    /Rewind to before prompt 3 \([\d:]+\): "now write the second file"/,
  );
  assert.match(plan.replace(/\s+/g, " "), /b\.txt/);
});
