import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { test } from "node:test";
import type { ProviderEvent, StreamFn } from "../../src/protocol/index.ts";
import { createAnthropicClient, createOpenAIClient } from "../../src/providers/index.ts";
import {
  anthropicText,
  hang,
  openaiText,
  type Script,
  type StreamOptions,
  type StubEndpoint,
  startStubEndpoint,
  status,
} from "../support/stub-endpoint.ts";
import { until } from "../support/until.ts";
import { finalError, recordedSleeps, sampleRequest } from "./helpers.ts";

// Real timers here. Each test proves the abort ended the wait by how it ended, not by how soon: had
// the wait gone on, it would have ended another way (a second request, a timeout's error).
type Format = "openai" | "anthropic";
const make = (format: Format, stub: StubEndpoint): StreamFn =>
  format === "openai"
    ? createOpenAIClient({ baseUrl: `${stub.url}/v1` })
    : createAnthropicClient({ baseUrl: stub.url });
const text = (format: Format, value: string, options: StreamOptions = {}): Script =>
  format === "openai" ? openaiText(value, options) : anthropicText(value, options);

/**
 * Runs the stream; `arm` is called with each event and returns a delay after which to abort (or a
 * condition to abort once it holds), or null.
 */
async function runAndAbort(
  stream: StreamFn,
  arm: (event: ProviderEvent) => number | (() => boolean) | null,
) {
  const controller = new AbortController();
  const events: ProviderEvent[] = [];
  let armed = false;
  for await (const event of stream(sampleRequest(), controller.signal)) {
    events.push(event);
    const when: number | (() => boolean) | null = armed ? null : arm(event);
    if (typeof when === "number") setTimeout(() => controller.abort(), when);
    else if (when !== null) until(when, "the moment to abort").then(() => controller.abort());
    armed ||= when !== null;
  }
  return { events };
}

async function withStub(scripts: Script[], body: (stub: StubEndpoint) => Promise<void>) {
  const stub = await startStubEndpoint({ scripts });
  try {
    await body(stub);
  } finally {
    await stub.close();
  }
}

for (const format of ["openai", "anthropic"] as const) {
  test(`${format}: aborting during a slow stream ends it at once with error aborted`, async () => {
    // 100 chunks, 100 ms apart, and no end: had the abort not stopped it, the idle timeout would have.
    const endless = { delayMs: 100, finishReason: null, includeDone: false, end: "hang" } as const;
    await withStub([text(format, "x".repeat(400), endless)], async (stub) => {
      const { events } = await runAndAbort(make(format, stub), (event) =>
        event.type === "text_delta" ? 0 : null,
      );
      assert.ok(events.some((e) => e.type === "text_delta"));
      assert.equal(finalError(events).code, "aborted");
    });
  });

  test(`${format}: aborting during a Retry-After wait ends at once, with no further request`, async () => {
    await withStub(
      [status(429, { headers: { "retry-after": "30" } }), text(format, "late")],
      async (stub) => {
        const { events } = await runAndAbort(make(format, stub), (event) =>
          event.type === "attempt_failed" ? 50 : null,
        );
        const failed = events.find((e) => e.type === "attempt_failed");
        assert.equal(failed?.type === "attempt_failed" && failed.retryInMs, 30_000);
        // Had the wait gone on, the retry would have been sent and answered.
        assert.equal(finalError(events).code, "aborted");
        assert.equal(stub.requests.length, 1);
      },
    );
  });

  test(`${format}: aborting while waiting for the first byte ends at once`, async () => {
    await withStub([hang()], async (stub) => {
      const { events } = await runAndAbort(make(format, stub), (event) =>
        event.type === "attempt_started" ? () => stub.requests.length > 0 : null,
      );
      assert.equal(stub.requests.length, 1, "the request reached the server before the abort");
      // The server never answers: only the first-byte timeout (its own error) would end it otherwise.
      assert.equal(finalError(events).code, "aborted");
    });
  });
}

test("an already aborted signal sends nothing and ends with error aborted", async () => {
  await withStub([], async (stub) => {
    const controller = new AbortController();
    controller.abort();
    const events: ProviderEvent[] = [];
    for await (const event of make("openai", stub)(sampleRequest(), controller.signal))
      events.push(event);
    assert.deepEqual(
      events.map((e) => e.type),
      ["error"],
    );
    assert.equal(finalError(events).code, "aborted");
    assert.equal(stub.requests.length, 0);
  });
});

test("an attempt leaves no listener on the run's signal: answered, failed and retried, or left unread", async () => {
  await withStub([status(500), openaiText("one"), openaiText("two")], async (stub) => {
    const stream = createOpenAIClient({ baseUrl: `${stub.url}/v1`, retry: recordedSleeps().retry });
    const controller = new AbortController();
    const types: string[] = [];
    for await (const event of stream(sampleRequest(), controller.signal)) types.push(event.type);
    assert.ok(types.includes("done"), types.join(", "));
    assert.equal(stub.requests.length, 2, "the 500 was retried");
    assert.equal(getEventListeners(controller.signal, "abort").length, 0, "after a retried answer");
    for await (const _ of stream(sampleRequest(), controller.signal)) break;
    assert.equal(getEventListeners(controller.signal, "abort").length, 0, "after a reader stopped");
  });
});
