import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { Message, ModelRequest, ToolSpec } from "../../src/protocol/index.ts";
import { anthropicBody, anthropicBodyText } from "../../src/providers/anthropic/anthropic-wire.ts";
import { openaiBody, openaiBodyText } from "../../src/providers/openai/openai-wire.ts";

const text = fc.oneof(fc.constant(""), fc.string(), fc.string({ unit: "grapheme" }));
const call = fc.record({
  id: fc.string({ minLength: 1 }),
  name: fc.constantFrom("read_file", "write_file", "bash"),
  argumentsText: fc.oneof(
    fc.constant('{"path":"a.txt"}'),
    fc.constant('```json\n{"path":"fenced"}\n```'),
    fc.constant('{"path":"cut'),
    fc.json(),
  ),
});
const message: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ type: fc.constant("user" as const), text }),
  fc.record({
    type: fc.constant("assistant" as const),
    text,
    toolCalls: fc.array(call, { maxLength: 3 }),
  }),
  fc.record({
    type: fc.constant("tool_result" as const),
    toolCallId: fc.string({ minLength: 1 }),
    toolName: fc.constant("read_file"),
    content: text,
    isError: fc.boolean(),
  }),
);
const tools: ToolSpec[] = [
  {
    name: "read_file",
    description: "Read a file.",
    parameters: { type: "object", properties: { path: { type: "string" } } },
  },
];
const request = fc.record({
  model: fc.string(),
  system: text,
  messages: fc.array(message, { maxLength: 12 }),
  tools: fc.constantFrom(tools, []),
  maxTokens: fc.integer({ min: 1, max: 100_000 }),
  requestId: fc.nat(),
}) as fc.Arbitrary<ModelRequest>;

test("the OpenAI body sent is byte for byte the JSON of the request, also when its messages come again", () => {
  fc.assert(
    fc.property(
      request,
      fc.boolean(),
      fc.constantFrom("max_tokens", "max_completion_tokens" as const),
      (req, stream, maxTokensField) => {
        const options = { stream, maxTokensField };
        const expected = JSON.stringify(openaiBody(req, options));
        assert.equal(openaiBodyText(req, options), expected);
        // The next request carries the same messages, now from the cache, and one more.
        const next = { ...req, messages: [...req.messages, ...req.messages.slice(0, 1)] };
        assert.equal(openaiBodyText(next, options), JSON.stringify(openaiBody(next, options)));
      },
    ),
  );
});

test("the Anthropic body sent is byte for byte the JSON of the request, with neighbours of one role merged", () => {
  fc.assert(
    fc.property(request, fc.boolean(), (req, stream) => {
      const options = { stream };
      assert.equal(anthropicBodyText(req, options), JSON.stringify(anthropicBody(req, options)));
      const next = { ...req, messages: [...req.messages, ...req.messages] };
      assert.equal(anthropicBodyText(next, options), JSON.stringify(anthropicBody(next, options)));
    }),
  );
});
