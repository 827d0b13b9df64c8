import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { AgentEvent } from "../../src/protocol/index.ts";
import { initialStatus, reduceStatus, spinnerOn, statusText } from "../../src/tui/state/status.ts";
import { anyEvent, terminalEvent } from "./event-arbitrary.ts";

function fold(events: AgentEvent[], start = 0) {
  return events.reduce(
    (state, event, i) => reduceStatus(state, event, start + i * 100),
    initialStatus,
  );
}

test("no event sequence ending in a terminal event leaves the spinner, a retry countdown or a tool running", () => {
  fc.assert(
    fc.property(fc.array(anyEvent, { maxLength: 60 }), terminalEvent, (events, last) => {
      const state = fold([...events, last]);
      assert.equal(spinnerOn(state), false);
      assert.equal(state.retry, null);
      assert.deepEqual(state.tools, []);
      assert.deepEqual(state.awaitingPermission, []);
      assert.equal(statusText(state, 1e9), "");
      assert.equal(state.lastOutcome, last.type);
    }),
    { numRuns: 2000 },
  );
});

test("the spinner is on right after any request_started, whatever came before", () => {
  fc.assert(
    fc.property(
      fc.array(anyEvent, { maxLength: 40 }),
      fc.integer({ min: 1, max: 3 }),
      (events, id) => {
        const state = fold([
          ...events,
          {
            type: "request_started",
            requestId: id,
            attempt: 1,
            host: "h",
            model: "m",
            maxTokens: 1,
          },
        ]);
        assert.equal(spinnerOn(state), true);
        assert.equal(state.retry, null);
      },
    ),
  );
});

test("the spinner goes off when its request finishes or fails, whatever came before", () => {
  fc.assert(
    fc.property(
      fc.array(anyEvent, { maxLength: 40 }),
      fc.integer({ min: 1, max: 3 }),
      fc.option(fc.nat(10_000)),
      fc.boolean(),
      (events, id, retryInMs, finishes) => {
        const start: AgentEvent = {
          type: "request_started",
          requestId: id,
          attempt: 1,
          host: "h",
          model: "m",
          maxTokens: 1,
        };
        const end: AgentEvent = finishes
          ? { type: "request_finished", requestId: id, stopReason: "stop", usage: null }
          : {
              type: "request_failed",
              requestId: id,
              attempt: 1,
              status: 429,
              code: "rate_limited",
              message: "slow down",
              retryInMs,
              maxRetries: 3,
              host: "h",
            };
        const state = fold([...events, start, end]);
        assert.equal(spinnerOn(state), false);
        assert.equal(state.retry !== null, !finishes && retryInMs !== null);
      },
    ),
  );
});

test("a retry wait counts down in whole seconds and names status, host and attempt", () => {
  const failed: AgentEvent = {
    type: "request_failed",
    requestId: 1,
    attempt: 2,
    status: 429,
    code: "rate_limited",
    message: "Too Many Requests",
    retryInMs: 4000,
    maxRetries: 3,
    host: "api.example.com",
  };
  const started: AgentEvent = {
    type: "request_started",
    requestId: 1,
    attempt: 2,
    host: "api.example.com",
    model: "m",
    maxTokens: 1,
  };
  const state = reduceStatus(reduceStatus(initialStatus, started, 0), failed, 1000);
  assert.equal(spinnerOn(state), false);
  assert.equal(statusText(state, 1000), "429 from api.example.com, retry 2/3 in 4s");
  assert.equal(statusText(state, 2500), "429 from api.example.com, retry 2/3 in 3s");
  assert.equal(statusText(state, 9000), "429 from api.example.com, retry 2/3 in 0s");
});

test("while a request is in flight the status shows the model, host and elapsed time", () => {
  const state = reduceStatus(
    initialStatus,
    {
      type: "request_started",
      requestId: 1,
      attempt: 1,
      host: "127.0.0.1:9",
      model: "qwen",
      maxTokens: 1,
    },
    10_000,
  );
  assert.equal(statusText(state, 12_345), "waiting for qwen at 127.0.0.1:9 · 2.3s");
});
