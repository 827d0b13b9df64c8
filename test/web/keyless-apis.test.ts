// The keyless search APIs of developer sites (Hacker News, Stack Exchange, GitHub), answers in each
// API's documented shape served on 127.0.0.1, and the breaker that rests a backend which keeps
// failing or asked for a pause: a resting backend is not asked at all, and the search says so.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { NexConfig } from "../../src/runtime/config/index.ts";
import { searchBackends } from "../../src/runtime/web/web-config.ts";
import type { SearchBackend } from "../../src/web/search-backends.ts";
import { createWebClient } from "../../src/web/web-client.ts";
import { createWebSearch } from "../../src/web/web-search.ts";
import { makeSandbox, runNex } from "../support/cli.ts";
import { keylessPages } from "../support/keyless-pages.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";

const keyless = (type: SearchBackend["type"], url: string): SearchBackend => ({
  type,
  url,
  key: null,
  keyEnv: null,
});
const asked = (pages: { requests: { path: string }[] }, path: string) =>
  pages.requests.filter((request) => request.path === path).length;

test("Hacker News: a story's own address, an Ask HN's discussion page, points and comments; a hit with no title left out", async () => {
  const pages = await keylessPages();
  const search = createWebSearch([keyless("hackernews", `${pages.url}/hn`)], createWebClient());
  const answer = await search.search("borrow checker", 10, AbortSignal.timeout(30_000));
  assert.deepEqual(
    answer.hits.map((hit) => hit.url),
    [
      "https://blog.rust-lang.org/2022/08/05/nll-by-default.html?utm_source=hn",
      "https://news.ycombinator.com/item?id=38400112",
    ],
  );
  assert.equal(
    answer.hits[0]?.snippet,
    "Hacker News, 512 points, 214 comments (discussion: https://news.ycombinator.com/item?id=32361217)",
  );
  assert.equal(
    answer.hits[1]?.snippet,
    "Hacker News, 131 points, 87 comments: I keep restructuring code until it compiles & I'd like a mental model instead.",
  );
  const request = pages.requests.findLast((r) => r.path === "/hn/api/v1/search") as {
    query: URLSearchParams;
  };
  assert.equal(request.query.get("query"), "borrow checker");
  assert.equal(request.query.get("tags"), "story");
  assert.equal(request.query.get("hitsPerPage"), "10");
});

test("Stack Exchange: titles unescaped, answered and score and tags said; the pause it asks for is kept before the next request", async () => {
  const pages = await keylessPages();
  const search = createWebSearch(
    [
      keyless("stackexchange", `${pages.url}/stackexchange`),
      keyless("hackernews", `${pages.url}/hn`),
    ],
    createWebClient(),
  );
  const first = await search.search("borrow mutable", 5, AbortSignal.timeout(30_000));
  const questions = first.hits.filter((hit) => hit.url.startsWith("https://stackoverflow.com/"));
  assert.deepEqual(
    questions.map((hit) => [hit.title, hit.snippet]),
    [
      [
        'Cannot borrow `x` as mutable because it is also borrowed as immutable "in a loop"',
        "Stack Overflow, answered; score 96; tags rust, borrow-checker, lifetime",
      ],
      [
        "Why doesn't the borrow checker see this?",
        "Stack Overflow, not answered; score -1; tags rust",
      ],
    ],
  );
  // Its answer asked for 10 s: the next search within them does not ask it, and says so.
  const before = asked(pages, "/stackexchange/2.3/search/advanced");
  const second = await search.search("another question", 5, AbortSignal.timeout(30_000));
  assert.equal(asked(pages, "/stackexchange/2.3/search/advanced"), before);
  assert.deepEqual(second.answered, ["hackernews"]);
  assert.match(
    second.failed.join("\n"),
    /^stackexchange: not asked: Stack Exchange asked for a pause of 10 s; it is asked again in (10|9) s$/,
  );
});

test("a Stack Exchange throttle and GitHub's rate limit are failures in their words, and neither is asked again before its wait", async () => {
  const pages = await keylessPages();
  const search = createWebSearch(
    [
      keyless("stackexchange", `${pages.url}/stackexchange-throttled`),
      keyless("github", `${pages.url}/github-limited`),
      keyless("hackernews", `${pages.url}/hn`),
    ],
    createWebClient(),
  );
  const first = await search.search("tokio", 5, AbortSignal.timeout(30_000));
  assert.match(
    first.failed.join("\n"),
    /stackexchange: the API said throttle_violation: too many requests from this IP, more requests available in 42 seconds \(HTTP 400\)/,
  );
  assert.match(
    first.failed.join("\n"),
    /github: rate limited \(HTTP 403: GitHub allows a few searches a minute without a token\); it says to wait (30|29) s/,
  );
  const counts = () => [
    asked(pages, "/stackexchange-throttled/2.3/search/advanced"),
    asked(pages, "/github-limited/search/repositories"),
  ];
  const before = counts();
  const second = await search.search("serde", 5, AbortSignal.timeout(30_000));
  assert.deepEqual(counts(), before, "neither was asked during its wait");
  assert.match(second.failed.join("\n"), /stackexchange: not asked: it asked for a pause/);
  assert.match(second.failed.join("\n"), /github: not asked: it asked for a pause/);
});

test("GitHub's repositories: name, address, description, language and stars", async () => {
  const pages = await keylessPages();
  const search = createWebSearch([keyless("github", `${pages.url}/github`)], createWebClient());
  const answer = await search.search("borrow checker", 5, AbortSignal.timeout(30_000));
  assert.deepEqual(
    answer.hits.map((hit) => [hit.title, hit.url, hit.snippet]),
    [
      [
        "rust-lang/rust",
        "https://github.com/rust-lang/rust",
        "Empowering everyone to build reliable and efficient software. · Rust, 101234 stars",
      ],
      ["rust-lang/polonius", "https://github.com/rust-lang/polonius", "1402 stars"],
    ],
  );
});

test("a backend failing three times in a row rests: the fourth search does not ask it and names why; the others still answer", async () => {
  const pages = await keylessPages();
  const search = createWebSearch(
    [keyless("hackernews", `${pages.url}/hn-broken`), keyless("github", `${pages.url}/github`)],
    createWebClient(),
  );
  for (const query of ["one", "two", "three"]) {
    const answer = await search.search(query, 5, AbortSignal.timeout(30_000));
    assert.match(answer.failed.join("\n"), /^hackernews: HTTP 502/);
  }
  assert.equal(asked(pages, "/hn-broken/api/v1/search"), 3);
  const fourth = await search.search("four", 5, AbortSignal.timeout(30_000));
  assert.equal(asked(pages, "/hn-broken/api/v1/search"), 3, "a resting backend is not asked");
  assert.deepEqual(fourth.answered, ["github"]);
  assert.match(
    fourth.failed.join("\n"),
    /^hackernews: not asked: 3 failures in a row \(the last: HTTP 502\); it is asked again in 5 min$/,
  );
});

test("by default Hacker News and Stack Exchange are asked beside DuckDuckGo and Wikipedia; GitHub only when named; none with keyless off", () => {
  const config = (web: Record<string, unknown>) => ({ web }) as unknown as NexConfig;
  assert.deepEqual(
    searchBackends(config({}), {}).map((backend) => [backend.type, backend.url]),
    [
      ["duckduckgo", "https://html.duckduckgo.com"],
      ["wikipedia", "https://en.wikipedia.org"],
      ["hackernews", "https://hn.algolia.com"],
      ["stackexchange", "https://api.stackexchange.com"],
    ],
  );
  assert.deepEqual(
    searchBackends(config({ search: [{ type: "github" }] }), {}).map((backend) => backend.type),
    ["github", "duckduckgo", "wikipedia", "hackernews", "stackexchange"],
  );
  assert.deepEqual(searchBackends(config({ keyless: false }), {}), []);
});

test("nex run: web_search asks DuckDuckGo, Wikipedia, Hacker News and Stack Exchange together, with no key, and merges them", async () => {
  const pages = await keylessPages();
  const box = makeSandbox();
  const configDir = join(box.workspace, "..", "config", "nex");
  mkdirSync(configDir, { recursive: true });
  writeFileSync(
    join(configDir, "config.json"),
    JSON.stringify({
      web: {
        search: [
          { type: "duckduckgo", url: `${pages.url}/ddg` },
          { type: "wikipedia", url: `${pages.url}/wikipedia` },
          { type: "hackernews", url: `${pages.url}/hn` },
          { type: "stackexchange", url: `${pages.url}/stackexchange` },
        ],
      },
    }),
  );
  let turn = 0;
  const stub = await startStubEndpoint({
    handler: () => {
      turn += 1;
      return turn === 1
        ? openaiToolCall({ name: "web_search", args: { query: "rust borrow checker" } })
        : openaiText("Found them.");
    },
  });
  const result = await runNex(
    ["run", "--yes", "--model", "stub-model", "--base-url", `${stub.url}/v1`, "search"].concat([
      "--data-dir",
      box.dataDir,
    ]),
    { cwd: box.workspace, env: { ...box.env, OPENAI_API_KEY: "k" } },
  );
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const told = JSON.stringify(stub.requestsTo("/v1/chat/completions")[1]?.body);
  assert.match(
    told,
    /results for \\"rust borrow checker\\" from duckduckgo, wikipedia, hackernews, stackexchange/,
  );
  assert.match(told, /news\.ycombinator\.com\/item\?id=38400112/);
  assert.match(told, /stackoverflow\.com\/questions\/47618401/);
});

test("a search repeated in the session is answered from its cache: no backend is asked again", async () => {
  const pages = await keylessPages();
  const search = createWebSearch([keyless("hackernews", `${pages.url}/hn`)], createWebClient());
  const first = await search.search("Borrow  checker", 5, AbortSignal.timeout(30_000));
  const before = asked(pages, "/hn/api/v1/search");
  const again = await search.search("borrow checker", 5, AbortSignal.timeout(30_000));
  assert.equal(asked(pages, "/hn/api/v1/search"), before);
  assert.equal(again.cached, true);
  assert.deepEqual(again.hits, first.hits);
});
