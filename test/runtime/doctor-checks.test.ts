import assert from "node:assert/strict";
import { test } from "node:test";
import type { AssembledTurn } from "../../src/protocol/index.ts";
import { judgeModel } from "../../src/runtime/doctor/doctor-checks.ts";
import { judgeToolCall, judgeTruncation } from "../../src/runtime/doctor/doctor-response-checks.ts";

function turn(fields: Partial<AssembledTurn>): {
  type: "turn";
  turn: AssembledTurn;
  terminator: string;
} {
  return {
    type: "turn",
    terminator: "[DONE]",
    turn: {
      text: "",
      toolCalls: [],
      stopReason: "stop",
      rawStopReason: "stop",
      terminated: true,
      usage: null,
      maxTokens: 5,
      ...fields,
    },
  };
}

test("a cut answer labelled stop with no usage fails truncation and says nex cannot tell a cut answer", () => {
  const verdict = judgeTruncation(turn({ text: "1 2 3" }));
  assert.equal(verdict.status, "fail");
  assert.match(verdict.next ?? "", /cannot tell a cut answer from a finished one/);
});

test("a model that stops on its own below max_tokens leaves truncation unobserved: a warning, not a pass", () => {
  const verdict = judgeTruncation(
    turn({ text: "No.", usage: { inputTokens: 30, outputTokens: 2 } }),
  );
  assert.equal(verdict.status, "warn");
  assert.match(verdict.found, /could not be observed/);
});

test("a tool probe that hits its limit before any call warns instead of blaming the tool support", () => {
  const verdict = judgeToolCall(
    turn({ stopReason: "length", rawStopReason: "length", maxTokens: 1024 }),
  );
  assert.equal(verdict.status, "warn");
  assert.match(verdict.found, /hit the 1024-token limit before any tool call/);
});

test("with no model given and several served, the model check fails and names them all", () => {
  const choice = judgeModel(["a", "b", "c"], null, 200);
  assert.equal(choice.model, null);
  assert.equal(choice.check.status, "fail");
  assert.match(choice.check.found, /serves 3: a, b, c/);
  assert.match(choice.check.next ?? "", /--model NAME/);
});

test("a probe call written as bare JSON in the answer (no chat-format marker) warns about the model, not the server, and quotes it", () => {
  const bare = '```json\n{"name": "record_word", "arguments": {"word": "ready"}}\n```';
  const verdict = judgeToolCall(turn({ text: bare }));
  assert.equal(verdict.status, "warn");
  assert.match(verdict.found, /as JSON in its answer \("```json \{"name": "record_word"/);
  assert.doesNotMatch(`${verdict.found} ${verdict.next}`, /--jinja|tool-call-parser/);
  const marked = judgeToolCall(
    turn({
      text: '<tool_call>\n{"name": "record_word", "arguments": {"word": "ready"}}\n</tool_call>',
    }),
  );
  assert.equal(marked.status, "fail");
  assert.match(marked.found, /as plain text \("<tool_call>/);
  assert.match(marked.next ?? "", /--jinja/);
});
