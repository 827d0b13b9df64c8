// Each search API's documented answers, errors and rate limits, read by its adapter; the merge, the
// cache, and the errors that say what to do when no backend answers.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { SearchBackend } from "../../src/web/search-backends.ts";
import { createWebClient } from "../../src/web/web-client.ts";
import { createWebSearch, SearchUnavailable } from "../../src/web/web-search.ts";
import { webPages } from "../support/web-pages.ts";

const KEYS: Record<string, string> = {
  brave: "brave-test-key",
  tavily: "tvly-test-key",
  exa: "exa-test-key",
};

async function backend(type: SearchBackend["type"], mode = ""): Promise<SearchBackend> {
  const pages = await webPages();
  return {
    type,
    url: `${pages.url}/${type}${mode ? `-${mode}` : ""}`,
    key: KEYS[type] ?? null,
    keyEnv: type === "searxng" ? null : `${type.toUpperCase()}_API_KEY`,
  };
}

async function failureOf(type: SearchBackend["type"], mode: string): Promise<string> {
  const search = createWebSearch([await backend(type, mode)], createWebClient());
  try {
    await search.search("widget", 5, AbortSignal.timeout(30_000));
  } catch (error) {
    assert.ok(error instanceof SearchUnavailable);
    return error.message;
  }
  assert.fail(`${type} ${mode} did not fail`);
}

test("each backend's results are read from its own shape, merged by URL, ranked by agreement", async () => {
  const pages = await webPages();
  const backends = await Promise.all(
    (["searxng", "brave", "tavily", "exa"] as const).map((type) => backend(type)),
  );
  const search = createWebSearch(backends, createWebClient());
  const answer = await search.search("widget 3.2", 8, AbortSignal.timeout(30_000));
  assert.deepEqual(answer.answered, [`searxng at ${pages.url}/searxng`, "brave", "tavily", "exa"]);
  // Four backends, three pages: `/changelog#top` and `/changelog` are one page.
  assert.deepEqual(
    answer.hits.map((hit) => hit.url.replace(pages.url, "")),
    ["/article", "/changelog#top", "/guide.pdf"],
  );
  assert.equal(answer.hits[0]?.snippet, "frobnicate() replaces frob()");
  // Asked again in the session: from the cache, no request.
  const calls = { ...pages.searchCalls };
  const again = await search.search("  Widget   3.2 ", 8, AbortSignal.timeout(30_000));
  assert.equal(again.cached, true);
  assert.deepEqual(pages.searchCalls, calls);
});

test("rate limits, refused keys and server errors are named in each API's own words", async () => {
  assert.match(
    await failureOf("brave", "rate_limited"),
    /brave: rate or usage limit \(HTTP 429: Request rate limit exceeded for plan\.\); it says to wait 1 s/,
  );
  assert.match(
    await failureOf("brave", "bad_key"),
    /brave: the key was refused \(HTTP 422: The provided subscription token is invalid\.\); check the key/,
  );
  assert.match(
    await failureOf("tavily", "rate_limited"),
    /tavily: rate or usage limit \(HTTP 429: Rate limit exceeded\); it says to wait 30 s/,
  );
  assert.match(
    await failureOf("tavily", "bad_key"),
    /tavily: the key was refused \(HTTP 401: Unauthorized: missing or invalid API key\.\)/,
  );
  assert.match(
    await failureOf("exa", "rate_limited"),
    /exa: rate or usage limit \(HTTP 429: You have exceeded your rate limit\)/,
  );
  assert.match(await failureOf("exa", "server_error"), /exa: HTTP 500: Internal Server Error/);
  assert.match(
    await failureOf("searxng", "bad_key"),
    /searxng at .*: the key was refused \(HTTP 403: 403 Forbidden\); SearXNG refuses format=json unless/,
  );
  assert.match(await failureOf("searxng", "rate_limited"), /HTTP 429: Too Many Requests/);
  for (const mode of ["rate_limited", "bad_key"])
    assert.match(await failureOf("brave", mode), /Configure a backend in the config file/);
});

test("no backend, a missing key, and no network are errors that say what to do, never an empty list", async () => {
  const none = createWebSearch([], createWebClient());
  await assert.rejects(
    none.search("x", 5, AbortSignal.timeout(30_000)),
    /No search backend is configured\. Configure a backend/,
  );
  const keyless = createWebSearch(
    [{ type: "brave", url: "https://api.search.brave.com", key: null, keyEnv: "BRAVE_API_KEY" }],
    createWebClient(),
  );
  await assert.rejects(
    keyless.search("x", 5, AbortSignal.timeout(30_000)),
    /brave: no key: the environment variable BRAVE_API_KEY is not set/,
  );
  const nowhere = createWebSearch(
    [{ type: "searxng", url: "", key: null, keyEnv: null }],
    createWebClient(),
  );
  await assert.rejects(
    nowhere.search("x", 5, AbortSignal.timeout(30_000)),
    /searxng: no address: give it a "url" \(your instance, e.g\. http:\/\/localhost:8888\) or set SEARXNG_URL/,
  );
  const offline = createWebSearch(
    [
      { type: "searxng", url: "http://127.0.0.1:9", key: null, keyEnv: null },
      { type: "tavily", url: "http://offline.invalid", key: "k", keyEnv: "TAVILY_API_KEY" },
    ],
    createWebClient(),
  );
  await assert.rejects(
    offline.search("x", 5, AbortSignal.timeout(30_000)),
    /every backend failed \(searxng at http:\/\/127\.0\.0\.1:9: 127\.0\.0\.1:9 could not be reached \(ECONNREFUSED\); tavily: offline\.invalid could not be resolved .*nex seems to be offline/,
  );
});
