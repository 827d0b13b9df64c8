// The backends that need no key, read from recorded answers served on 127.0.0.1: DuckDuckGo's HTML
// results (ads and non-web links left out, its redirect links unwrapped, a bot check named), and
// Wikipedia's search API (markup and entities out of snippets, an error in a 200 body named); both
// fanned out beside a keyed backend and merged by URL; offline, each backend's failure named.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { SearchBackend } from "../../src/web/search-backends.ts";
import { createWebClient } from "../../src/web/web-client.ts";
import { createWebSearch, SearchUnavailable } from "../../src/web/web-search.ts";
import { keylessPages } from "../support/keyless-pages.ts";
import { webPages } from "../support/web-pages.ts";

const keyless = (type: "duckduckgo" | "wikipedia", url: string): SearchBackend => ({
  type,
  url,
  key: null,
  keyEnv: null,
});

test("DuckDuckGo's HTML page: web results in order, ads and non-web links left out, links unwrapped", async () => {
  const pages = await keylessPages();
  const search = createWebSearch([keyless("duckduckgo", `${pages.url}/ddg`)], createWebClient());
  const answer = await search.search("rust borrow checker", 10, AbortSignal.timeout(30_000));
  assert.deepEqual(answer.answered, ["duckduckgo"]);
  assert.deepEqual(
    answer.hits.map((hit) => hit.url),
    [
      "https://doc.rust-lang.org/book/ch04-02-references-and-borrowing.html",
      "https://en.wikipedia.org/wiki/Rust_(programming_language)",
      "https://blog.rust-lang.org/2022/08/05/nll-by-default.html?utm_source=ddg",
    ],
  );
  assert.equal(answer.hits[0]?.title, "References and Borrowing - The Rust Programming Language");
  assert.match(
    answer.hits[0]?.snippet ?? "",
    /^The borrow checker enforces that .* & references must always be valid\.$/,
  );
  const asked = pages.requests.find((request) => request.path === "/ddg/html/");
  assert.equal(asked?.query.get("q"), "rust borrow checker");
});

test("DuckDuckGo with no results is an empty list; its bot check is a named failure, not 'no results'", async () => {
  const pages = await keylessPages();
  const none = createWebSearch([keyless("duckduckgo", `${pages.url}/ddg`)], createWebClient());
  assert.deepEqual((await none.search("qqzxqzx", 5, AbortSignal.timeout(30_000))).hits, []);
  const challenged = createWebSearch(
    [keyless("duckduckgo", `${pages.url}/ddg-challenge`)],
    createWebClient(),
  );
  await assert.rejects(
    challenged.search("rust", 5, AbortSignal.timeout(30_000)),
    (error: Error) =>
      error instanceof SearchUnavailable &&
      /duckduckgo: DuckDuckGo asked for a bot check \(HTTP 202\) instead of results/.test(
        error.message,
      ),
  );
});

test("Wikipedia's search API: page addresses from titles, snippets as plain text, errors in a 200 body named", async () => {
  const pages = await keylessPages();
  const search = createWebSearch(
    [keyless("wikipedia", `${pages.url}/wikipedia`)],
    createWebClient(),
  );
  const answer = await search.search("borrow checker", 3, AbortSignal.timeout(30_000));
  assert.deepEqual(
    answer.hits.map((hit) => hit.url),
    [
      `${pages.url}/wikipedia/wiki/Rust_(programming_language)`,
      `${pages.url}/wikipedia/wiki/Borrow_checker`,
      `${pages.url}/wikipedia/wiki/Affine_type_system`,
    ],
  );
  assert.equal(
    answer.hits[0]?.snippet,
    'ownership and a borrow checker that "guarantees" memory safety & thread safety',
  );
  assert.equal(answer.hits[2]?.snippet, "Rust's borrow rules are an affine discipline");
  const asked = pages.requests.find((request) => request.path === "/wikipedia/w/api.php");
  assert.equal(asked?.query.get("srsearch"), "borrow checker");
  assert.equal(asked?.query.get("srlimit"), "3");
  const failing = createWebSearch(
    [keyless("wikipedia", `${pages.url}/wikipedia-error`)],
    createWebClient(),
  );
  await assert.rejects(
    failing.search("x", 3, AbortSignal.timeout(30_000)),
    /wikipedia: the API said srsearch-text-disabled: text search is disabled\)/,
  );
});

test("keyless and keyed backends are asked together and merged by URL; a failing one is named beside the results", async () => {
  const pages = await keylessPages();
  const web = await webPages();
  const search = createWebSearch(
    [
      { type: "searxng", url: `${web.url}/searxng`, key: null, keyEnv: null },
      keyless("duckduckgo", `${pages.url}/ddg`),
      keyless("wikipedia", `${pages.url}/wikipedia-error`),
    ],
    createWebClient(),
  );
  const answer = await search.search("widget", 20, AbortSignal.timeout(30_000));
  assert.deepEqual(answer.answered, [`searxng at ${web.url}/searxng`, "duckduckgo"]);
  assert.equal(answer.hits.length, 6);
  assert.match(answer.failed.join("\n"), /^wikipedia: the API said srsearch-text-disabled/);
});

test("offline, every keyless backend's failure is named and nex says it seems offline", async () => {
  const search = createWebSearch(
    [
      keyless("duckduckgo", "http://html.duckduckgo.invalid"),
      keyless("wikipedia", "http://127.0.0.1:9"),
    ],
    createWebClient(),
  );
  await assert.rejects(
    search.search("x", 5, AbortSignal.timeout(30_000)),
    (error: Error) =>
      /duckduckgo: html\.duckduckgo\.invalid could not be resolved/.test(error.message) &&
      /wikipedia: 127\.0\.0\.1:9 could not be reached/.test(error.message) &&
      /nex seems to be offline/.test(error.message),
  );
});

test("DuckDuckGo is asked at most once a second, counted from the end of the previous answer, however many searches come at once", async () => {
  const pages = await keylessPages();
  const search = createWebSearch(
    [keyless("duckduckgo", `${pages.url}/ddg-slow`)],
    createWebClient(),
  );
  const before = pages.requests.length;
  await Promise.all(
    ["one", "two", "three"].map((query) => search.search(query, 5, AbortSignal.timeout(60_000))),
  );
  const asked = pages.requests
    .slice(before)
    .filter((request) => request.path === "/ddg-slow/html/")
    .sort((a, b) => a.at - b.at);
  assert.equal(asked.length, 3);
  // The server's own clock on both ends: a loaded machine delaying a request cannot shorten the gap.
  for (let i = 1; i < asked.length; i++) {
    const gap = (asked[i]?.at ?? 0) - (asked[i - 1]?.ended ?? Number.POSITIVE_INFINITY);
    assert.ok(gap >= 1_000, `request ${i + 1} came ${gap} ms after the answer before it`);
  }
});
