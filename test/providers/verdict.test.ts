import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { AssembledTurn } from "../../src/protocol/index.ts";
import { createTurnAssembler } from "../../src/providers/index.ts";

type Ending = {
  finish: string | null;
  terminated: boolean;
  outputTokens: number | null;
};

const maxTokens = 4096;

/** Assembles one OpenAI call whose argument text is `text`, fed in pieces of `size`, then ended as told. */
function assembleOpenAI(text: string, ending: Ending, size = 7): AssembledTurn {
  const assembler = createTurnAssembler({
    wire: "openai",
    streaming: true,
    maxTokens,
    explicitClose: false,
  });
  assembler.addCallDelta(0, { id: "call_1", name: "write_file", argumentsText: "" });
  for (let i = 0; i < text.length; i += size)
    assembler.addCallDelta(0, { argumentsText: text.slice(i, i + size) });
  assembler.setStopReason(ending.finish);
  if (ending.outputTokens !== null)
    assembler.setUsage({ inputTokens: 100, outputTokens: ending.outputTokens });
  if (ending.terminated) assembler.markTerminated();
  return assembler.finish();
}

function assembleAnthropic(text: string, ending: Ending & { closed: boolean }): AssembledTurn {
  const assembler = createTurnAssembler({
    wire: "anthropic",
    streaming: true,
    maxTokens,
    explicitClose: true,
  });
  assembler.addCallDelta(1, { id: "toolu_1", name: "write_file" });
  assembler.addCallDelta(1, { argumentsText: text });
  if (ending.closed) assembler.closeCall(1);
  assembler.setStopReason(ending.finish);
  if (ending.outputTokens !== null)
    assembler.setUsage({ inputTokens: 100, outputTokens: ending.outputTokens });
  if (ending.terminated) assembler.markTerminated();
  return assembler.finish();
}

const verdictOf = (turn: AssembledTurn) => {
  const call = turn.toolCalls[0];
  assert.ok(call);
  return call.verdict;
};

const full = JSON.stringify({
  path: "src/main.rs",
  content: 'fn main() {\n    println!("héllo — 世界 🌍");\n}\n',
});

const dropped: Ending = { finish: null, terminated: false, outputTokens: null };
const relabelled: Ending = { finish: "stop", terminated: true, outputTokens: maxTokens };
const lyingGateway: Ending = { finish: "tool_calls", terminated: true, outputTokens: 50 };

test("a call cut at every character offset never yields a dispatchable call, whatever the gateway claims", () => {
  for (let cut = 0; cut < full.length; cut++) {
    const prefix = full.slice(0, cut);
    for (const ending of [dropped, relabelled]) {
      const verdict = verdictOf(assembleOpenAI(prefix, ending));
      assert.equal(verdict.type, "poisoned", `cut at ${cut} with ${JSON.stringify(ending)}`);
    }
    // Every signal lies (clean stop, terminator, usage below the limit): only the JSON itself can tell.
    const verdict = verdictOf(assembleOpenAI(prefix, lyingGateway));
    if (cut === 0) {
      // Documented choice: "" with every signal clean is a zero-argument call; schema validation refuses it for write_file.
      assert.deepEqual(verdict, { type: "whole", args: {}, recovery: "strict" });
    } else {
      assert.equal(verdict.type, "poisoned", `cut at ${cut} with clean signals`);
    }
  }
  assert.equal(verdictOf(assembleOpenAI(full, lyingGateway)).type, "whole");
});

test("a call cut at every UTF-8 byte offset (decoded as a lenient decoder would) is never dispatchable", () => {
  const bytes = Buffer.from(full, "utf8");
  for (let cut = 1; cut < bytes.length; cut++) {
    const prefix = new TextDecoder().decode(bytes.subarray(0, cut));
    const verdict = verdictOf(assembleOpenAI(prefix, lyingGateway));
    assert.equal(verdict.type, "poisoned", `byte cut at ${cut}`);
    assert.equal(
      verdictOf(assembleAnthropic(prefix, { ...lyingGateway, finish: "tool_use", closed: true }))
        .type,
      "poisoned",
    );
  }
});

test("property: any JSON object's argument text cut short is poisoned under any ending", () => {
  const ending = fc.record({
    finish: fc.constantFrom(null, "stop", "tool_calls", "length", "content_filter"),
    terminated: fc.boolean(),
    outputTokens: fc.option(fc.integer({ min: 0, max: maxTokens * 2 }), { nil: null }),
  });
  fc.assert(
    fc.property(
      fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.jsonValue(), { minKeys: 1 }),
      fc.nat(),
      fc.integer({ min: 1, max: 64 }),
      ending,
      (value, cutSeed, size, end) => {
        const text = JSON.stringify(value);
        const cut = 1 + (cutSeed % (text.length - 1));
        return verdictOf(assembleOpenAI(text.slice(0, cut), end, size)).type === "poisoned";
      },
    ),
    { numRuns: 2000 },
  );
});

test("a relabelled truncation (finish stop, usage equal to max_tokens) names the limit and the key being written", () => {
  const verdict = verdictOf(assembleOpenAI(full.slice(0, 40), relabelled));
  assert.deepEqual(verdict, {
    type: "poisoned",
    cause: "output_limit",
    reason: "output was cut off at the 4096-token output limit while writing `content`",
    bytesReceived: 40,
  });
});

test("output at the limit poisons even a call whose JSON happens to parse", () => {
  const verdict = verdictOf(
    assembleOpenAI(full, { finish: "tool_calls", terminated: true, outputTokens: maxTokens }),
  );
  assert.equal(verdict.type, "poisoned");
  assert.equal(verdict.type === "poisoned" && verdict.cause, "output_limit");
});

test("a missing terminator poisons a complete-looking call and says how many bytes arrived", () => {
  const verdict = verdictOf(
    assembleOpenAI(full, { finish: "tool_calls", terminated: false, outputTokens: 20 }),
  );
  assert.deepEqual(verdict, {
    type: "poisoned",
    cause: "stream_dropped",
    reason: `the stream ended before its terminator ([DONE]) after ${Buffer.byteLength(full)} bytes of arguments`,
    bytesReceived: Buffer.byteLength(full),
  });
});

test("an abnormal stop reason poisons a parseable call", () => {
  const verdict = verdictOf(
    assembleOpenAI(full, { finish: "content_filter", terminated: true, outputTokens: 20 }),
  );
  assert.equal(verdict.type === "poisoned" && verdict.cause, "abnormal_stop");
});

test("an Anthropic tool_use block never closed is poisoned even after message_stop", () => {
  const verdict = verdictOf(
    assembleAnthropic(full, {
      finish: "tool_use",
      terminated: true,
      outputTokens: 20,
      closed: false,
    }),
  );
  assert.equal(verdict.type === "poisoned" && verdict.cause, "stream_dropped");
});

test("an Anthropic max_tokens stop is an output-limit poison", () => {
  const verdict = verdictOf(
    assembleAnthropic(full.slice(0, 30), {
      finish: "max_tokens",
      terminated: true,
      outputTokens: 100,
      closed: true,
    }),
  );
  assert.equal(verdict.type === "poisoned" && verdict.cause, "output_limit");
});

test("arguments that are valid JSON but not an object are poisoned as not_an_object", () => {
  const verdict = verdictOf(assembleOpenAI('["a.txt"]', lyingGateway));
  assert.equal(verdict.type === "poisoned" && verdict.cause, "not_an_object");
});

test("empty arguments with every signal clean are a zero-argument call", () => {
  assert.deepEqual(verdictOf(assembleOpenAI("", lyingGateway)), {
    type: "whole",
    args: {},
    recovery: "strict",
  });
  assert.equal(verdictOf(assembleOpenAI("", dropped)).type, "poisoned");
});

test("argument fragments are assembled in linear time (a 4 MB call in one-byte fragments)", () => {
  const content = "x".repeat(4 * 1024 * 1024);
  const text = JSON.stringify({ path: "big.txt", content });
  const assembler = createTurnAssembler({
    wire: "openai",
    streaming: true,
    maxTokens: 10_000_000,
    explicitClose: false,
  });
  for (let i = 0; i < text.length; i++) assembler.addCallDelta(0, { argumentsText: text[i] ?? "" });
  assembler.setStopReason("tool_calls");
  assembler.markTerminated();
  const verdict = verdictOf(assembler.finish());
  assert.equal(verdict.type === "whole" && (verdict.args.content as string).length, content.length);
});

test("a missing or empty stop reason is unknown: with the terminator, usage below the limit and a strict parse the call is whole", () => {
  for (const finish of [null, "", "  "]) {
    const verdict = verdictOf(assembleOpenAI(full, { finish, terminated: true, outputTokens: 20 }));
    assert.equal(verdict.type, "whole", `finish ${JSON.stringify(finish)}`);
    const anthropic = verdictOf(
      assembleAnthropic(full, { finish, terminated: true, outputTokens: 20, closed: true }),
    );
    assert.equal(anthropic.type, "whole", `anthropic finish ${JSON.stringify(finish)}`);
  }
});

test("an unknown stop reason never rescues a call another signal condemns", () => {
  const causeOf = (ending: Ending, text = full) => {
    const verdict = verdictOf(assembleOpenAI(text, ending));
    return verdict.type === "poisoned" ? verdict.cause : "whole";
  };
  assert.equal(causeOf({ finish: null, terminated: false, outputTokens: 20 }), "stream_dropped");
  assert.equal(causeOf({ finish: "", terminated: true, outputTokens: maxTokens }), "output_limit");
  assert.equal(
    causeOf({ finish: null, terminated: true, outputTokens: 20 }, full.slice(0, -9)),
    "unparseable",
  );
  assert.equal(causeOf({ finish: null, terminated: true, outputTokens: null }), "whole");
});
