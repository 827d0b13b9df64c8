// deep_research's bounds, with the session's model and search played by the test and real pages on
// 127.0.0.1: a sub-question whose search never answers stops at three quarters of the time budget,
// the answer is still written from what was gathered, and the gap is named.
import assert from "node:assert/strict";
import { test } from "node:test";
import { deepResearch } from "../../src/web/deep-research.ts";
import { createWebClient } from "../../src/web/web-client.ts";
import type { WebSearch } from "../../src/web/web-search.ts";
import { webPages } from "../support/web-pages.ts";

test("a sub-question that hangs stops at three quarters of the budget; the answer is still written from the rest", async () => {
  const pages = await webPages();
  const search: WebSearch = {
    backends: [],
    async search(query, _count, signal) {
      if (query.startsWith("slow"))
        return new Promise((_, reject) =>
          signal.addEventListener("abort", () => reject(new Error("search cancelled")), {
            once: true,
          }),
        );
      return {
        hits: [{ title: "Widget 3.2 release notes", url: `${pages.url}/article`, snippet: "" }],
        answered: ["stub"],
        failed: [],
        cached: false,
      };
    },
  };
  const synthesis: { at: number; aborted: boolean }[] = [];
  const started = Date.now();
  const answer = await deepResearch(
    "What changed?",
    {
      search,
      client: createWebClient({ allowPrivateHosts: [`127.0.0.1:${pages.port}`] }),
      summarise: async () => "frobnicate() replaces frob()",
      ask: async (system, _prompt, signal) => {
        if (system.startsWith("You plan")) return "fast one?\nslow one?\nslow two?";
        synthesis.push({ at: Date.now() - started, aborted: signal.aborted });
        return "frobnicate() replaces frob() [1].";
      },
      progress: () => {},
      budgetBytes: 8_000,
      // The budget is under test, and the fast sub-question's page and the answer race it: long
      // enough that a loaded machine finishes those in time (gathering stops at 15 s, the answer 5 s
      // later at most).
      timeoutMs: 20_000,
    },
    AbortSignal.timeout(60_000),
  );
  assert.match(
    answer,
    /^Deep research: What changed\?\n\nfrobnicate\(\) replaces frob\(\) \[1\]\./,
  );
  assert.match(
    answer,
    /Sources:\n\[1\] Widget 3\.2 release notes — http:\/\/127\.0\.0\.1:\d+\/article/,
  );
  assert.match(
    answer,
    /Gaps:\n- "slow one\?": the time budget ran out\n- "slow two\?": not researched \(the time budget ran out\)/,
  );
  assert.equal(synthesis.length, 1);
  assert.equal(synthesis[0]?.aborted, false);
});

test("a result pointing at a private address (cloud metadata) is never read: it is named under Gaps", async () => {
  const search: WebSearch = {
    backends: [],
    async search() {
      return {
        hits: [
          { title: "meta", url: "http://169.254.169.254/latest/meta-data/iam", snippet: "" },
          { title: "local", url: "http://127.0.0.1:9/admin", snippet: "" },
        ],
        answered: ["stub"],
        failed: [],
        cached: false,
      };
    },
  };
  let summaries = 0;
  const answer = await deepResearch(
    "What is in the metadata?",
    {
      search,
      client: createWebClient(),
      summarise: async () => {
        summaries++;
        return "never";
      },
      ask: async (system) => (system.startsWith("You plan") ? "one?" : "unused"),
      progress: () => {},
      budgetBytes: 8_000,
      timeoutMs: 60_000,
    },
    AbortSignal.timeout(60_000),
  );
  assert.equal(summaries, 0);
  assert.match(answer, /No page could be read for any sub-question, so there is no answer\./);
  assert.match(
    answer,
    /not read: http:\/\/169\.254\.169\.254\/latest\/meta-data\/iam: .*cloud metadata address/,
  );
  assert.match(answer, /not read: http:\/\/127\.0\.0\.1:9\/admin: .*loopback address/);
});
