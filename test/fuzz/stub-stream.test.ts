// The same properties over a real socket: the real client and HTTP client against the stub endpoint,
// which cuts the body at a random byte (possibly inside a UTF-8 character) and closes or resets.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import fc from "fast-check";
import { createAnthropicClient, createOpenAIClient } from "../../src/providers/index.ts";
import { collect, sampleRequest, terminal } from "../providers/helpers.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import type { Script } from "../support/stub-scripts.ts";
import { argumentText, MAX_TOKENS, RUNS, streamBytes, toolCall } from "./tool-call-streams.ts";

const stub = await startStubEndpoint();
after(() => stub.close());

for (const wire of ["openai", "anthropic"] as const) {
  test(`${wire} over the stub endpoint: a stream cut at any byte never yields a dispatchable call with altered content; uncut, it yields the exact call`, async () => {
    const options = {
      baseUrl: `${stub.url}/v1`,
      retry: { sleep: async () => {}, random: () => 0.5 },
    };
    const client = wire === "openai" ? createOpenAIClient(options) : createAnthropicClient(options);
    await fc.assert(
      fc.asyncProperty(
        fc.array(toolCall, { minLength: 1, maxLength: 2 }),
        fc.nat(),
        fc.constantFrom("close" as const, "destroy" as const),
        async (generated, cutSeed, end) => {
          const body = streamBytes(wire, generated, "complete");
          const cut = cutSeed % (body.length + 2);
          const script: Script = {
            type: "stream",
            headers: { "content-type": "text/event-stream" },
            parts: [body.toString("utf8")],
            ...(cut <= body.length ? { cutBodyAt: cut } : {}),
            end,
          };
          stub.setHandler(() => script);
          const last = terminal(await collect(client, sampleRequest({ maxTokens: MAX_TOKENS })));
          const whole = cut >= body.length;
          if (last.type !== "done") {
            assert.ok(
              !whole || end === "destroy",
              `the uncut stream failed: ${last.error.message}`,
            );
            return;
          }
          for (const [i, call] of last.turn.toolCalls.entries()) {
            if (call.verdict.type !== "whole") {
              assert.ok(
                !whole,
                `the uncut stream poisoned call ${i}: ${JSON.stringify(call.verdict)}`,
              );
              continue;
            }
            assert.ok(whole, `cut at ${cut}/${body.length}, call ${i} is dispatchable`);
            assert.equal(
              call.argumentsText,
              argumentText(generated[i] as (typeof generated)[number]),
            );
            assert.deepEqual(call.verdict.args, generated[i]?.args);
          }
        },
      ),
      { numRuns: Math.ceil(RUNS / 3) },
    );
  });
}
