import assert from "node:assert/strict";
import { test } from "node:test";
import { createThinkSplitter } from "../../src/providers/turns/think-tags.ts";

/** Feeds `content` cut at the given positions and joins what came out, by kind. */
function split(content: string, cuts: number[]): { text: string; reasoning: string } {
  const splitter = createThinkSplitter();
  const out = { text: "", reasoning: "" };
  let from = 0;
  const pieces = [];
  for (const cut of [...cuts, content.length]) {
    pieces.push(...splitter.push(content.slice(from, cut)));
    from = cut;
  }
  pieces.push(...splitter.end());
  for (const piece of pieces) out[piece.kind === "text" ? "text" : "reasoning"] += piece.text;
  return out;
}

test("<think> reasoning is split out of the answer wherever the chunks are cut", () => {
  const content =
    "\n<think>Weigh <b> and </thin k> here.</think>\n\nThe answer is <think>42</think>.";
  const expected = {
    reasoning: "Weigh <b> and </thin k> here.",
    text: "The answer is <think>42</think>.",
  };
  assert.deepEqual(split(content, []), expected);
  for (let a = 0; a <= content.length; a++) {
    for (let b = a; b <= content.length; b += 3) {
      assert.deepEqual(split(content, [a, b]), expected, `cut at ${a} and ${b}`);
    }
  }
});

test("only a tag that opens the answer is reasoning; unclosed reasoning stays reasoning", () => {
  assert.deepEqual(split("Use <think> tags like this.", [3]), {
    text: "Use <think> tags like this.",
    reasoning: "",
  });
  assert.deepEqual(split("<thinking>still going", [4]), { text: "", reasoning: "still going" });
  assert.deepEqual(split("<thi", []), { text: "<thi", reasoning: "" });
});
