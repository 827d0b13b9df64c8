// arxiv_search and deep_research through the tool host, against recorded arXiv feeds and the loopback
// search stubs: papers read from Atom, arXiv's error entry and its limit said in its words, requests
// spaced three seconds apart, and deep_research bounded to a few sub-questions with cited sources.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import type { NexConfig } from "../../src/runtime/config/config.ts";
import { type WebToolParts, webTools } from "../../src/runtime/web/web-tools.ts";
import { createToolHost } from "../../src/tools/index.ts";
import { keylessPages } from "../support/keyless-pages.ts";
import { scratchDir } from "../support/scratch-dir.ts";
import { webPages } from "../support/web-pages.ts";

function host(web: Record<string, unknown>, more: Partial<WebToolParts> = {}) {
  const dir = scratchDir("nex-scholar-tools-");
  return createToolHost({
    workspace: dir,
    mode: "approve_all",
    checkpointDir: join(dir, ".checkpoints"),
    extraTools: webTools({
      config: { web: { keyless: false, ...web }, proxy: null } as unknown as NexConfig,
      env: {},
      summarize: async (input) => `notes on ${input.url.replace(/^http:\/\/[^/]+/, "")}`,
      window: () => 32_768,
      ...more,
    }),
  });
}

let id = 0;
const call = (name: string, args: Record<string, unknown>) => ({
  id: `c${++id}`,
  name,
  args,
  turn: 1,
});

test("arxiv_search reads arXiv's Atom feed: titles, authors, dates, categories, links and abstracts", async () => {
  const pages = await keylessPages();
  const tools = host({ arxivUrl: `${pages.url}/arxiv` });
  const outcome = await tools.execute(
    call("arxiv_search", { query: "multi electron", max_results: 2 }),
    AbortSignal.timeout(30_000),
  );
  assert.equal(outcome.isError, false, outcome.content);
  assert.match(outcome.content, /^2 of 212844 arXiv papers for "multi electron":/);
  assert.match(
    outcome.content,
    /1\. Multi-Electron Production at High Transverse Momenta in ep Collisions at HERA\n {3}H1 Collaboration · 2003-07-07 · hep-ex\n {3}http:\/\/arxiv\.org\/abs\/hep-ex\/0307015v1 \(PDF http:\/\/arxiv\.org\/pdf\/hep-ex\/0307015v1\)\n {3}Multi-electron production is studied .* measured & compared/,
  );
  assert.match(
    outcome.content,
    /2\. Mistral 7B\n {3}Albert Q\. Jiang, Alexandre Sablayrolles, Arthur Mensch et al\. \(6 authors\) · 2023-10-10, updated 2024-01-17 · cs\.CL · doi 10\.48550\/arXiv\.2310\.06825/,
  );
  const asked = pages.requests.findLast((request) => request.path === "/arxiv/api/query");
  assert.equal(asked?.query.get("search_query"), "all:multi AND all:electron");
  assert.equal(asked?.query.get("max_results"), "2");
});

test("arxiv_search passes arXiv's own syntax and ids through, and says when nothing matched", async () => {
  const pages = await keylessPages();
  const tools = host({ arxivUrl: `${pages.url}/arxiv` });
  await tools.execute(
    call("arxiv_search", { query: "au:jiang AND ti:mistral" }),
    AbortSignal.timeout(30_000),
  );
  assert.equal(
    pages.requests.findLast((r) => r.path === "/arxiv/api/query")?.query.get("search_query"),
    "au:jiang AND ti:mistral",
  );
  await tools.execute(
    call("arxiv_search", { query: "2310.06825 hep-ex/0307015" }),
    AbortSignal.timeout(30_000),
  );
  assert.equal(
    pages.requests.findLast((r) => r.path === "/arxiv/api/query")?.query.get("id_list"),
    "2310.06825,hep-ex/0307015",
  );
  const none = await tools.execute(
    call("arxiv_search", { query: "qqzxqzx" }),
    AbortSignal.timeout(30_000),
  );
  assert.equal(none.isError, false);
  assert.match(none.content, /arXiv has no papers for "qqzxqzx"/);
});

test("arXiv's error entry and its rate limit are failures in arXiv's words, never an empty list", async () => {
  const pages = await keylessPages();
  const refused = await host({ arxivUrl: `${pages.url}/arxiv-error` }).execute(
    call("arxiv_search", { query: "x" }),
    AbortSignal.timeout(30_000),
  );
  assert.equal(refused.isError, true);
  assert.match(refused.content, /arXiv refused the query: max_results must be non-negative\./);
  const limited = await host({ arxivUrl: `${pages.url}/arxiv-limited` }).execute(
    call("arxiv_search", { query: "x" }),
    AbortSignal.timeout(30_000),
  );
  assert.equal(limited.isError, true);
  assert.match(limited.content, /arXiv is limiting requests \(HTTP 503\); it says to wait 7 s/);
});

test("arxiv_search calls of one session are spaced three seconds apart (from the end of the previous answer), as arXiv asks", async () => {
  const pages = await keylessPages();
  const tools = host({ arxivUrl: `${pages.url}/arxiv` });
  const before = pages.requests.length;
  await Promise.all(
    [1, 2].map(() =>
      tools.execute(call("arxiv_search", { query: "spacing" }), AbortSignal.timeout(30_000)),
    ),
  );
  const asked = pages.requests.slice(before).sort((a, b) => a.at - b.at);
  assert.equal(asked.length, 2);
  const gap = (asked[1]?.at ?? 0) - (asked[0]?.ended ?? Number.POSITIVE_INFINITY);
  assert.ok(gap >= 3_000, `the second came ${gap} ms after the first's answer`);
});

test("deep_research: a few sub-questions, each researched, one answer citing numbered sources", async () => {
  const pages = await webPages();
  const asked: string[] = [];
  const tools = host(
    {
      allowPrivateHosts: [`127.0.0.1:${pages.port}`],
      search: [{ type: "searxng", url: `${pages.url}/searxng` }],
    },
    {
      ask: async (system, prompt) => {
        asked.push(system.slice(0, 20));
        if (system.startsWith("You plan"))
          return "1. What replaces frob()?\n2. Where does the configuration move?\n3. What replaces frob()?\n4. a\n5. Why did the timeout rise?\n6. Extra one";
        assert.match(prompt, /\[1\] \(What replaces frob\(\)\?\) notes on \/article/);
        return "frobnicate() replaces frob() [1]; configuration moves to widget.toml [2].";
      },
    },
  );
  const before = { ...pages.searchCalls };
  const outcome = await tools.execute(
    call("deep_research", { question: "What changed in Widget 3.2?" }),
    AbortSignal.timeout(60_000),
  );
  assert.equal(outcome.isError, false, outcome.content);
  assert.match(
    outcome.content,
    /^Deep research: What changed in Widget 3\.2\?\n\nfrobnicate\(\) replaces frob\(\) \[1\]/,
  );
  assert.match(
    outcome.content,
    /Sources:\n\[1\] Widget 3\.2 release notes — http:\/\/127\.0\.0\.1:\d+\/article\n\[2\] Widget changelog/,
  );
  // Duplicates and non-questions dropped, at most four kept; one plan and one synthesis request.
  assert.match(
    outcome.content,
    /Sub-questions researched:\n- What replaces frob\(\)\?\n- Where does the configuration move\?\n- Why did the timeout rise\?\n- Extra one$/,
  );
  assert.deepEqual(asked, ["You plan web researc", "You write a research"]);
  assert.equal((pages.searchCalls.searxng ?? 0) - (before.searxng ?? 0), 4);
  // A page seen by an earlier sub-question is one source, not two.
  assert.equal(outcome.content.match(/— http:\/\/127\.0\.0\.1:\d+\/article/g)?.length, 1);
});

test("deep_research with no backend answering fails at the first sub-question: no request storm", async () => {
  const pages = await webPages();
  let asks = 0;
  const tools = host(
    { search: [{ type: "searxng", url: "http://127.0.0.1:9" }] },
    {
      ask: async () => {
        asks++;
        return "one?\ntwo?\nthree?";
      },
    },
  );
  const before = pages.searchCalls.searxng ?? 0;
  const outcome = await tools.execute(
    call("deep_research", { question: "widget" }),
    AbortSignal.timeout(60_000),
  );
  assert.equal(outcome.isError, true);
  assert.match(outcome.content, /Web search failed: every backend failed/);
  assert.equal(asks, 1);
  assert.equal(pages.searchCalls.searxng ?? 0, before);
});

test("arxiv_search and deep_research reach outside the workspace: they ask in ask mode, showing the query", async () => {
  const dir = scratchDir("nex-scholar-ask-");
  const tools = createToolHost({
    workspace: dir,
    mode: "ask",
    checkpointDir: join(dir, ".checkpoints"),
    extraTools: webTools({
      config: { web: {}, proxy: null } as unknown as NexConfig,
      env: {},
      summarize: async () => "",
      window: () => 32_768,
    }),
  });
  assert.deepEqual(await tools.permission(call("arxiv_search", { query: "mistral" })), {
    type: "ask",
    summary: 'arxiv_search "mistral"',
  });
  const deep = await tools.permission(call("deep_research", { question: "why?" }));
  assert.equal(deep.type, "ask");
  assert.match(
    deep.type === "ask" ? deep.summary : "",
    /^deep_research "why\?" \(up to 4 sub-questions/,
  );
});
