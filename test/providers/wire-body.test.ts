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

const image = {
  mediaType: "image/png" as const,
  data: "iVBORw0KGgo=",
  width: 1,
  height: 1,
  bytes: 8,
};
// A conversation's next step: messages added at its end, or one replaced (a result stubbed), or its
// beginning rewritten (compaction), or its end cut (a rewind).
const step = fc.oneof(
  fc.record({ kind: fc.constant("add" as const), messages: fc.array(message, { maxLength: 4 }) }),
  fc.record({
    kind: fc.constant("images" as const),
    count: fc.integer({ min: 1, max: 2 }),
  }),
  fc.record({ kind: fc.constant("replace" as const), at: fc.nat(), with: message }),
  fc.record({ kind: fc.constant("compact" as const), keep: fc.nat(), summary: text }),
  fc.record({ kind: fc.constant("cut" as const), keep: fc.nat() }),
);

test("the OpenAI body of each request of a conversation that grows, is stubbed, compacted or cut is byte for byte its JSON", () => {
  fc.assert(
    fc.property(request, fc.array(step, { maxLength: 12 }), (req, steps) => {
      const options = { stream: true, maxTokensField: "max_tokens" as const };
      let messages = [...req.messages];
      const check = () => {
        // A new array each time, as the loop may give: the messages themselves are what is kept.
        const next = { ...req, messages: [...messages] };
        assert.equal(openaiBodyText(next, options), JSON.stringify(openaiBody(next, options)));
      };
      check();
      for (const s of steps) {
        if (s.kind === "add") messages.push(...s.messages);
        else if (s.kind === "images")
          messages.push({
            type: "tool_result",
            toolCallId: "c",
            toolName: "read_file",
            content: "a picture",
            isError: false,
            images: Array.from({ length: s.count }, () => image),
          });
        else if (s.kind === "replace" && messages.length > 0) {
          const at = s.at % messages.length;
          messages[at] = s.with;
        } else if (s.kind === "compact") {
          const summary: Message = { type: "user", text: `[summary] ${s.summary}` };
          messages = [
            summary,
            ...messages.slice(messages.length - (s.keep % (messages.length + 1))),
          ];
        } else if (s.kind === "cut") messages = messages.slice(0, s.keep % (messages.length + 1));
        check();
      }
    }),
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
