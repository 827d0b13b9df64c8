import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import type { ProviderEvent, StreamFn } from "../../src/protocol/index.ts";
import {
  createAnthropicClient,
  createOpenAIClient,
  type RetryOptions,
} from "../../src/providers/index.ts";
import {
  anthropicText,
  hang,
  openaiText,
  type Script,
  type StubEndpoint,
  startStubEndpoint,
  status,
} from "../support/stub-endpoint.ts";
import {
  collect,
  doneTurn,
  finalError,
  recordedSleeps,
  sampleRequest,
  terminal,
} from "./helpers.ts";

let stub: StubEndpoint;
before(async () => {
  stub = await startStubEndpoint();
});
after(() => stub.close());

type Format = "openai" | "anthropic";
const formats: Format[] = ["openai", "anthropic"];

function clientFor(
  format: Format,
  retry: RetryOptions,
  extra: Record<string, unknown> = {},
): StreamFn {
  return format === "openai"
    ? createOpenAIClient({ baseUrl: `${stub.url}/v1`, apiKey: "sk-retry-test", retry, ...extra })
    : createAnthropicClient({ baseUrl: stub.url, apiKey: "sk-retry-test", retry, ...extra });
}

const success = (format: Format): Script =>
  format === "openai" ? openaiText("fine") : anthropicText("fine");

async function run(format: Format, scripts: Script[], retryExtra: RetryOptions = {}) {
  stub.enqueue(...scripts);
  const before = stub.requests.length;
  const { waits, retry } = recordedSleeps(retryExtra);
  const events = await collect(clientFor(format, retry));
  return { events, waits, requests: stub.requests.slice(before) };
}

const failures = (events: ProviderEvent[]) =>
  events.filter(
    (e): e is Extract<ProviderEvent, { type: "attempt_failed" }> => e.type === "attempt_failed",
  );

for (const format of formats) {
  test(`${format}: 400_no_retry_loop — a 400 is sent exactly once and surfaces with the server's message`, async () => {
    const { events, waits, requests } = await run(format, [
      status(400, { body: { error: { message: "Invalid value for 'tools[0].function.name'" } } }),
    ]);
    assert.equal(requests.length, 1);
    assert.deepEqual(waits, []);
    const error = finalError(events);
    assert.equal(error.code, "bad_request");
    assert.equal(error.status, 400);
    assert.equal(error.retryable, false);
    assert.match(error.message, /Invalid value for 'tools\[0\]\.function\.name'/);
    assert.match(error.message, /HTTP 400/);
    assert.match(error.message, new RegExp(new URL(stub.url).host.replace(/\./g, "\\.")));
    assert.deepEqual(
      failures(events).map((f) => [f.retryInMs, f.maxRetries]),
      [[null, 0]],
    );
  });

  test(`${format}: 404, 413 and 422 are never retried`, async () => {
    for (const code of [404, 413, 422]) {
      const { events, requests } = await run(format, [status(code)]);
      assert.equal(requests.length, 1, `HTTP ${code}`);
      assert.equal(finalError(events).retryable, false);
    }
  });

  test(`${format}: 429_backoff — waits follow Retry-After in seconds, at most 3 retries, then the last error in full`, async () => {
    const limited = (n: number) =>
      status(429, {
        headers: { "retry-after": "2" },
        body: { error: { message: `slow down #${n}` } },
      });
    const { events, waits, requests } = await run(format, [
      limited(1),
      limited(2),
      limited(3),
      limited(4),
    ]);
    assert.equal(requests.length, 4);
    assert.deepEqual(waits, [2000, 2000, 2000]);
    assert.deepEqual(
      failures(events).map((f) => [f.attempt, f.retryInMs, f.maxRetries]),
      [
        [1, 2000, 3],
        [2, 2000, 3],
        [3, 2000, 3],
        [4, null, 3],
      ],
    );
    const error = finalError(events);
    assert.equal(error.code, "rate_limited");
    assert.match(error.message, /slow down #4/);
    assert.match(error.message, /gave up after 3 retries/);
  });

  test(`${format}: 429 with an HTTP-date Retry-After waits until that date`, async () => {
    const now = Date.UTC(2026, 0, 1, 12, 0, 0);
    const until = new Date(now + 7000).toUTCString();
    const { events, waits } = await run(
      format,
      [status(429, { headers: { "retry-after": until } }), success(format)],
      { now: () => now },
    );
    assert.deepEqual(waits, [7000]);
    assert.equal(doneTurn(events).text, "fine");
  });

  test(`${format}: 429 without Retry-After backs off exponentially from about a second`, async () => {
    const { waits } = await run(format, [status(429), status(429), status(429), success(format)]);
    assert.deepEqual(waits, [1000, 2000, 4000]);
  });

  test(`${format}: 429 with Retry-After 120 gives up at once without sleeping and says how long the endpoint asked to wait`, async () => {
    const { events, waits, requests } = await run(format, [
      status(429, { headers: { "retry-after": "120" } }),
    ]);
    assert.equal(requests.length, 1);
    assert.deepEqual(waits, []);
    const error = finalError(events);
    assert.match(error.message, /asked to wait 120 s/);
    assert.match(error.message, /try again later/);
    assert.deepEqual(
      failures(events).map((f) => f.retryInMs),
      [null],
    );
  });

  test(`${format}: 5xx backs off with growing waits, at most 5 retries`, async () => {
    const { events, waits, requests } = await run(
      format,
      Array.from({ length: 6 }, () => status(503)),
    );
    assert.equal(requests.length, 6);
    assert.equal(waits.length, 5);
    for (let i = 1; i < waits.length; i++)
      assert.ok((waits[i] ?? 0) > (waits[i - 1] ?? 0), `waits ${waits}`);
    assert.ok((waits[0] ?? 0) >= 800 && (waits[0] ?? 0) <= 1200);
    const error = finalError(events);
    assert.equal(error.code, "server_error");
    assert.match(error.message, /gave up after 5 retries/);
  });

  test(`${format}: jitter varies the exponential waits within ±20%`, async () => {
    const { waits } = await run(format, [status(500), status(500), success(format)], {
      random: () => 0,
    });
    assert.deepEqual(waits, [800, 1600]);
  });

  test(`${format}: 401 is not retried; the message hints at the key and base URL and holds no key`, async () => {
    const { events, requests } = await run(format, [
      status(401, { body: { error: { message: "invalid x-api-key" } } }),
    ]);
    assert.equal(requests.length, 1);
    const error = finalError(events);
    assert.equal(error.code, "auth");
    assert.match(error.message, format === "openai" ? /OPENAI_API_KEY/ : /ANTHROPIC_API_KEY/);
    assert.match(error.message, /base URL/);
    assert.doesNotMatch(JSON.stringify(events), /sk-retry-test/);
  });

  test(`${format}: a distinctive key is sent but appears in no event or error, even when the server echoes it`, async () => {
    const key = "sk-DISTINCTIVE-7f3a9c1e5b";
    stub.setHandler((request) =>
      status(request.index % 2 === 0 ? 401 : 500, {
        body: {
          error: {
            message: `bad key ${request.headers.authorization ?? ""} ${request.headers["x-api-key"] ?? ""}`,
          },
        },
      }),
    );
    try {
      const before = stub.requests.length;
      const stream =
        format === "openai"
          ? createOpenAIClient({
              baseUrl: `${stub.url}/v1`,
              apiKey: key,
              retry: recordedSleeps().retry,
            })
          : createAnthropicClient({
              baseUrl: stub.url,
              apiKey: key,
              retry: recordedSleeps().retry,
            });
      const events = [...(await collect(stream)), ...(await collect(stream))];
      const sent = stub.requests.slice(before);
      assert.ok(sent.length >= 2);
      const header =
        format === "openai" ? sent[0]?.headers.authorization : sent[0]?.headers["x-api-key"];
      assert.equal(header, format === "openai" ? `Bearer ${key}` : key);
      assert.ok(events.some((e) => e.type === "error"));
      assert.doesNotMatch(JSON.stringify(events), /DISTINCTIVE/);
      assert.match(JSON.stringify(events), /\[redacted\]/);
    } finally {
      stub.setHandler(null);
    }
  });

  test(`${format}: a first-byte timeout is retried like a network failure`, async () => {
    // The first request hangs for ever; every retry is answered (this process's stub, which a loaded
    // machine may hold past the timeout: a late answer is retried again, not a failure).
    let asked = 0;
    stub.setHandler(() => (asked++ === 0 ? hang() : success(format)));
    try {
      const { events } = await runWithTimeouts(format, [], { firstByteMs: 1500, idleMs: 30_000 });
      const failed = failures(events);
      assert.equal(failed[0]?.error.code, "timeout");
      assert.match(
        failed[0]?.error.message ?? "",
        /Timed out waiting for .*: no response within 1500 ms|1\.5 s/,
      );
      assert.equal(doneTurn(events).text, "fine");
    } finally {
      stub.setHandler(null);
    }
  });

  test(`${format}: a stream that stalls after output ends done, not terminated, instead of being retried`, async () => {
    const base = success(format);
    const stalled: Script =
      base.type === "stream" ? { ...base, parts: base.parts.slice(0, 3), end: "hang" } : base;
    // Only the idle timeout is under test: the first bytes may be slow on a loaded machine.
    const { events } = await runWithTimeouts(format, [stalled], {
      firstByteMs: 30_000,
      idleMs: 50,
    });
    const turn = doneTurn(events);
    assert.equal(turn.terminated, false);
    assert.equal(events.filter((e) => e.type === "attempt_started").length, 1);
  });
}

async function runWithTimeouts(
  format: Format,
  scripts: Script[],
  timeouts: { firstByteMs: number; idleMs: number },
) {
  stub.enqueue(...scripts);
  const { retry } = recordedSleeps();
  const events = await collect(clientFor(format, retry, { timeouts }));
  return { events };
}

test("a refused connection is retried at most 5 times, then says to check the server and base URL", async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const { waits, retry } = recordedSleeps();
  const events = await collect(
    createOpenAIClient({ baseUrl: `http://127.0.0.1:${port}/v1`, retry }),
  );
  assert.equal(waits.length, 5);
  const error = finalError(events);
  assert.equal(error.code, "network");
  assert.match(error.message, /ECONNREFUSED/);
  assert.match(error.message, /base URL/);
  assert.equal(events.filter((e) => e.type === "attempt_started").length, 6);
});

test("a port that fetch refuses to use is a configuration error, never retried", async () => {
  const { waits, retry } = recordedSleeps();
  const events = await collect(createOpenAIClient({ baseUrl: "http://127.0.0.1:9/v1", retry }));
  assert.equal(waits.length, 0);
  const error = finalError(events);
  assert.equal(error.code, "config");
  assert.match(error.message, /bad port/);
  assert.equal(events.filter((e) => e.type === "attempt_started").length, 1);
});

test("mixed failures share one budget: a request is never attempted more than 6 times", async () => {
  stub.enqueue(status(429), status(500), status(502), status(503), status(500), status(500));
  const { retry } = recordedSleeps();
  const before = stub.requests.length;
  const events = await collect(
    createOpenAIClient({ baseUrl: `${stub.url}/v1`, retry }),
    sampleRequest(),
  );
  assert.equal(stub.requests.length - before, 6);
  assert.equal(terminal(events).type, "error");
});

test("Retry-After: 0 still waits half a second between attempts: a struggling server never gets a burst", async () => {
  for (const format of formats) {
    const { waits, requests } = await run(format, [
      status(429, { headers: { "retry-after": "0" } }),
      status(503, { headers: { "retry-after-ms": "0" } }),
      success(format),
    ]);
    assert.deepEqual(waits, [500, 500], format);
    assert.equal(requests.length, 3, format);
  }
});
