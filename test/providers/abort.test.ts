import assert from "node:assert/strict";
import { test } from "node:test";
import type { ProviderEvent, StreamFn } from "../../src/protocol/index.ts";
import { createAnthropicClient, createOpenAIClient } from "../../src/providers/index.ts";
import {
  anthropicText,
  hang,
  openaiText,
  type Script,
  type StubEndpoint,
  startStubEndpoint,
  status,
} from "../support/stub-endpoint.ts";
import { finalError, sampleRequest } from "./helpers.ts";

// Real timers here: each test proves the stream ends long before the wait it cancels would have.
type Format = "openai" | "anthropic";
const make = (format: Format, stub: StubEndpoint): StreamFn =>
  format === "openai"
    ? createOpenAIClient({ baseUrl: `${stub.url}/v1` })
    : createAnthropicClient({ baseUrl: stub.url });
const text = (format: Format, value: string, delayMs = 0): Script =>
  format === "openai" ? openaiText(value, { delayMs }) : anthropicText(value, { delayMs });

/** Runs the stream; `arm` is called with each event and returns a delay after which to abort, or null. */
async function runAndAbort(stream: StreamFn, arm: (event: ProviderEvent) => number | null) {
  const controller = new AbortController();
  const events: ProviderEvent[] = [];
  let abortedAt = 0;
  let armed = false;
  for await (const event of stream(sampleRequest(), controller.signal)) {
    events.push(event);
    const delay = armed ? null : arm(event);
    if (delay !== null) {
      armed = true;
      setTimeout(() => {
        abortedAt = Date.now();
        controller.abort();
      }, delay);
    }
  }
  return { events, elapsedAfterAbort: Date.now() - abortedAt };
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
    // 100 chunks, 100 ms apart: about 10 s if the abort did not stop it.
    await withStub([text(format, "x".repeat(400), 100)], async (stub) => {
      const { events, elapsedAfterAbort } = await runAndAbort(make(format, stub), (event) =>
        event.type === "text_delta" ? 0 : null,
      );
      assert.ok(events.some((e) => e.type === "text_delta"));
      assert.equal(finalError(events).code, "aborted");
      // Half the stream's length: a loaded machine may be slow, but never that slow to stop.
      assert.ok(elapsedAfterAbort < 5000, `ended ${elapsedAfterAbort} ms after the abort`);
    });
  });

  test(`${format}: aborting during a Retry-After wait ends at once, with no further request`, async () => {
    await withStub(
      [status(429, { headers: { "retry-after": "30" } }), text(format, "late")],
      async (stub) => {
        const { events, elapsedAfterAbort } = await runAndAbort(make(format, stub), (event) =>
          event.type === "attempt_failed" ? 50 : null,
        );
        const failed = events.find((e) => e.type === "attempt_failed");
        assert.equal(failed?.type === "attempt_failed" && failed.retryInMs, 30_000);
        assert.equal(finalError(events).code, "aborted");
        assert.ok(
          elapsedAfterAbort < 15_000,
          `ended ${elapsedAfterAbort} ms after the abort; the wait was 30 s`,
        );
        assert.equal(stub.requests.length, 1);
      },
    );
  });

  test(`${format}: aborting while waiting for the first byte ends at once`, async () => {
    await withStub([hang()], async (stub) => {
      const { events, elapsedAfterAbort } = await runAndAbort(make(format, stub), (event) =>
        event.type === "attempt_started" ? 250 : null,
      );
      assert.equal(stub.requests.length, 1, "the request reached the server before the abort");
      assert.equal(finalError(events).code, "aborted");
      // The server never answers: anything bounded is the abort's doing; the bound only stops a hang.
      assert.ok(elapsedAfterAbort < 15_000, `ended ${elapsedAfterAbort} ms after the abort`);
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
