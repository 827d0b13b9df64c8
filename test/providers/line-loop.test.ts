// The watch on a reply's reasoning: the same line or the same few lines written over and over (the
// loop reasoning models fall into on real servers) is found within a few rounds, whatever the pieces
// it streams in; reasoning that comes back to a thought, numbered steps, and repeated short lines
// are not loops; and the watch runs on every wire's reasoning, so the stream is cut and the reply
// keeps the loop's first round.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createTurnAssembler } from "../../src/providers/turns/index.ts";
import { createLineLoopWatch, createReasoningWatch } from "../../src/providers/turns/line-loop.ts";

/** Streams `text` in pieces of `piece` characters; the loop found and how far the stream was read. */
function watch(text: string, piece = 7, make = createLineLoopWatch) {
  const w = make();
  for (let at = 0; at < text.length; at += piece) {
    const found = w.push(text.slice(at, at + piece));
    if (found) return { ...found, readTo: Math.min(at + piece, text.length) };
  }
  return null;
}

// The shape of QwenLM/Qwen3 #1887 (Qwen3-4B, llama.cpp): an answer already found, then the same
// decisions about its format, over and over.
const before = ["The user asks for 323/23 as a number.", "323 / 23 = 14.043478...", ""].join("\n");
const cycle = [
  "Let's go with 14.04.",
  "Actually, I'll just say 14.",
  "Wait, 323/23 is not exactly 14.",
  "I will output 14.043.",
  "The instruction says one sentence, so I should answer with the number alone and nothing else.",
  "",
].join("\n");

test("a block of five lines of reasoning written over and over is found by its fourth round, and its first round is kept", () => {
  const text = before + cycle.repeat(200);
  const found = watch(text);
  assert.ok(found, "the loop was not found");
  assert.match(
    found.detail,
    /^the same 5 lines \(from "Let's go with 14\.04\."\) \d+ times in a row$/,
  );
  // Each round is about 190 characters: the 1,024 the rounds must cover take six of them.
  assert.ok(found.readTo < before.length + cycle.length * 7, `read ${found.readTo} characters`);
  assert.equal(text.slice(0, found.keepChars), before + cycle);
});

test("one sentence written on line after line is found, whatever the pieces it streams in", () => {
  const line = "I need to check the file again before I make the edit to the function.\n";
  const text = `Let me think.\n${line.repeat(500)}`;
  for (const piece of [1, 3, 64, 4096]) {
    const found = watch(text, piece);
    assert.ok(found, `not found in pieces of ${piece}`);
    assert.match(
      found.detail,
      /^the same line \("I need to check the file again before I make the edit to …"\) \d+ times in a row$/,
    );
    assert.equal(text.slice(0, found.keepChars), `Let me think.\n${line}`);
  }
});

test("indentation, trailing spaces and blank lines between rounds do not hide a loop", () => {
  const rounds = Array.from(
    { length: 60 },
    (_, i) => `${" ".repeat(i % 3)}Maybe the bug is in the parser instead.${i % 2 ? "  " : ""}\n\n`,
  ).join("");
  assert.ok(watch(rounds), "varying white space hid the loop");
});

test("reasoning that comes back to a thought, lists steps or repeats a short line is not a loop", () => {
  const steps = Array.from(
    { length: 300 },
    (_, i) =>
      `Step ${i + 1}: read line ${i + 1} of the file and compare it with the expected output.`,
  ).join("\n");
  assert.equal(watch(steps), null, "numbered steps");
  const back = Array.from(
    { length: 40 },
    (_, i) =>
      `Hmm, let me reconsider.\nThe test on line ${i * 7} fails because the value is ${i}.\nSo I should look at the caller.\n`,
  ).join("");
  assert.equal(watch(back), null, "a thought that comes back with other words between");
  // Three rounds of a long block are a model checking its work again, not yet a loop.
  const block = `The function returns the sum of the list, and the test expects 10.\n${"x".repeat(400)}\n`;
  assert.equal(watch(block.repeat(3)), null, "three rounds");
  // A short line repeated (a grid of zeros, a rule) covers too few characters to count.
  assert.equal(watch("0 0 0 0\n".repeat(100)), null, "a grid of zeros");
});

test("the reasoning watch also finds one short unit looping within a line", () => {
  const found = watch(`Thinking: ${"so then ".repeat(400)}`, 11, createReasoningWatch);
  assert.ok(found);
  assert.match(
    found.detail,
    /the same 8 characters \(" ?so then ?"\) \d+ times back to back in its reasoning$/,
  );
});

test("recorded reasoning of real servers (every wire's recording in the corpus) is no loop", () => {
  const dir = join(import.meta.dirname, "corpus");
  let streams = 0;
  for (const name of readdirSync(dir)) {
    const text = readFileSync(join(dir, name), "utf8");
    // Each recording's reasoning, as the wire carries it: the JSON strings of its reasoning fields.
    const pieces = [
      ...text.matchAll(/"(?:reasoning_content|reasoning|thinking|text)":\s*("(?:[^"\\]|\\.)*")/g),
    ].map((m) => JSON.parse(m[1] as string) as string);
    if (pieces.length === 0) continue;
    streams += 1;
    const w = createReasoningWatch();
    for (const piece of pieces) assert.equal(w.push(piece), null, `${name}: ${w.loop?.detail}`);
  }
  assert.ok(streams >= 10, `only ${streams} recordings held reasoning`);
});

/** The assembler of one streamed chat-completions reply. */
const chatAssembler = () =>
  createTurnAssembler({ wire: "openai", streaming: true, maxTokens: 32_000, explicitClose: false });

test("a chat-completions reply whose reasoning loops is cut: the turn is a runaway, keeps one round and runs no call", () => {
  const assembler = chatAssembler();
  const line = "Wait, maybe I should read the config file first to see the port.\n";
  let fed = 0;
  while (!assembler.isCut() && fed < 2000) {
    assembler.addReasoning(line);
    fed += 1;
  }
  assert.ok(assembler.isCut(), "the loop did not cut the stream");
  assert.ok(fed < 30, `read ${fed} rounds`);
  assembler.addCallDelta(0, { id: "c1", name: "bash", argumentsText: '{"command":"ls"}' });
  const turn = assembler.finish();
  assert.match(turn.runaway ?? "", /the same line .* in its reasoning$/);
  assert.equal(turn.reasoning, line);
  assert.notEqual(turn.toolCalls[0]?.verdict.type, "whole", "a call of a cut reply ran");
});

test("reasoning inside <think> in the answer's text is watched too", () => {
  const assembler = chatAssembler();
  assembler.addContent("<think>\n");
  let fed = 0;
  while (!assembler.isCut() && fed < 2000) {
    assembler.addContent("Let me re-read the question. The user wants the total of the column.\n");
    fed += 1;
  }
  assert.ok(assembler.isCut(), "the loop in <think> did not cut the stream");
  assert.match(assembler.finish().runaway ?? "", /in its reasoning$/);
});

test("a loop that runs past the end of reasoning (a block closing it with </think>, over and over, as the answer) is cut and keeps one round", () => {
  // 1Cat-vLLM #569 (Qwen3.8-27B, vLLM with its reasoning parser): 251 copies of this block, the
  // first in the reasoning, the rest in the answer's text.
  const round = "I need to investigate this. Let\n me just paste the message.\n</think>\n";
  const assembler = chatAssembler();
  assembler.addReasoning(
    "The user wants the log. I need to investigate this. Let\n me just paste the message.\n",
  );
  let fed = 0;
  while (!assembler.isCut() && fed < 251) {
    assembler.addContent(round);
    fed += 1;
  }
  assert.ok(assembler.isCut(), "the loop past </think> was not cut");
  assert.ok(fed <= 20, `read ${fed} rounds`);
  const turn = assembler.finish();
  assert.match(
    turn.runaway ?? "",
    /^the same 3 lines \(from "I need to investigate this\. Let"\) \d+ times in a row, past the end of its reasoning$/,
  );
  assert.ok(
    turn.text.length < round.length * 2,
    `kept ${turn.text.length} characters of the answer`,
  );
});

test("an answer that repeats lines without closing reasoning, or explains </think> tags, is not cut", () => {
  const rows = chatAssembler();
  for (let i = 0; i < 400; i++) rows.addContent("2026-11-27,widget,10\n");
  assert.equal(rows.isCut(), false, "repeated CSV rows");
  const explained = chatAssembler();
  for (let i = 0; i < 60; i++)
    explained.addContent(
      `Case ${i}: the parser reads <think>\nreasoning ${i}\n</think>\nand then the answer.\n`,
    );
  assert.equal(explained.isCut(), false, "examples of think tags, each different");
});

test("a line longer than 4,096 characters, repeated, is found whatever the pieces it streams in, and is named by its words", () => {
  const long = `Wait, let me list every case again: ${Array.from({ length: 2000 }, (_, i) => `w${i}`).join(" ")}\n`;
  assert.ok(long.length > 8192);
  const text = long.repeat(20);
  // Pieces of changing sizes, so no two rounds are cut at the same places.
  const w = createLineLoopWatch();
  let found = null;
  for (let at = 0, size = 5; at < text.length && !found; at += size, size = ((size * 7) % 97) + 3)
    found = w.push(text.slice(at, at + size));
  assert.ok(found, "the long line's loop was not found");
  assert.match(
    found.detail,
    /^the same line \("Wait, let me list every case again: w0 w1 [^"\\]*…"\) \d+ times in a row$/,
  );
  assert.equal(text.slice(0, found.keepChars), long);
});

test("a file drafted in the reasoning is no loop: markup rows, fixture rows, fenced or not, and a fenced block", () => {
  const board = Array.from({ length: 32 }, (_, i) =>
    i % 2 ? '  <div class="square black"></div>' : '  <div class="square white"></div>',
  ).join("\n");
  const rows = "Alice,30,admin,alice@example.com,2026-11-27\n".repeat(40);
  const fenced = `\`\`\`python\n${"    self.assertEqual(parse_line(line), expected_result_for_the_line)\n".repeat(30)}\`\`\`\n`;
  for (const [what, draft] of [
    ["a chessboard's squares", `Let me write the board.\n${board}\nThat is the board.\n`],
    ["fixture rows", `The fixture needs forty identical rows:\n${rows}`],
    ["a fenced block", `Draft:\n${fenced}Now write it.\n`],
  ] as const)
    assert.equal(watch(draft, 9, createReasoningWatch), null, what);
});
