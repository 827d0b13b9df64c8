// The keyless search pages and arXiv's feed read back against an independent reference: generated
// results (titles, addresses and snippets with markup characters, entities, non-ASCII, ads and
// non-web links among them) written in each service's own shape, then read by nex's readers, must
// come back exactly (ads and non-web links left out); and every line of a chunked input lands in
// exactly one chunk, in order.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { cutIntoChunks } from "../../src/runtime/subagents/chunks.ts";
import { readFeed } from "../../src/web/arxiv.ts";
import { readDuckDuckGo, readWikipedia } from "../../src/web/keyless-backends.ts";
import type { WebResponse } from "../../src/web/web-client.ts";
import { conformanceSeed } from "./seed.ts";

const RUNS = 60;
const escapeMarkup = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const squash = (text: string) => text.replace(/\s+/g, " ").trim();

// Words with the characters that trip hand-written readers: markup, entities, quotes, non-ASCII.
const word = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9]{1,8}$/),
  fc.constantFrom("<b>", "&amp;", "a&b", '"q"', "it's", "naïve", "日本", "x<y", "#1", "%20"),
);
const phrase = fc.array(word, { minLength: 1, maxLength: 8 }).map((words) => words.join(" "));
const path = fc.array(fc.stringMatching(/^[a-z0-9_-]{1,6}$/), { maxLength: 3 });
const hit = fc.record({
  title: phrase,
  url: fc
    .tuple(fc.constantFrom("http", "https"), fc.stringMatching(/^[a-z]{1,8}$/), path)
    .map(([scheme, host, parts]) => `${scheme}://${host}.example/${parts.join("/")}`),
  snippet: phrase,
  kind: fc.constantFrom("web", "web", "web", "ad", "javascript"),
});

type Hit = { title: string; url: string; snippet: string; kind: string };
type Paper = { id: string; title: string; summary: string; authors: string[]; category: string };

function duckDuckGoPage(hits: Hit[]): string {
  const results = hits.map((h) => {
    const href =
      h.kind === "ad"
        ? `https://duckduckgo.com/y.js?ad_domain=x&amp;u3=${encodeURIComponent(h.url)}`
        : `//duckduckgo.com/l/?uddg=${encodeURIComponent(h.kind === "javascript" ? "javascript:void(0)" : h.url)}&amp;rut=abc`;
    return `<div class="result results_links results_links_deep ${h.kind === "ad" ? "result--ad" : "web-result"}"><div class="links_main result__body"><h2 class="result__title"><a rel="nofollow" class="result__a" href="${href}">${escapeMarkup(h.title)}</a></h2><a class="result__snippet" href="${href}">${escapeMarkup(h.snippet)}</a></div></div>`;
  });
  return `<!DOCTYPE html><html><head><title>q at DuckDuckGo</title></head><body><div id="links" class="results">${results.join("\n")}${hits.length === 0 ? '<div class="no-results">No results.</div>' : ""}</div></body></html>`;
}

const response = (body: string): WebResponse => ({
  url: "http://127.0.0.1/html/",
  status: 200,
  contentType: "text/html",
  headers: {},
  body: Buffer.from(body),
  redirects: [],
});

test("DuckDuckGo's results read back exactly, in order, without ads or non-web links", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(hit, { maxLength: 12 }), async (hits) => {
      const read = await readDuckDuckGo(response(duckDuckGoPage(hits)), 50);
      const expected = hits
        .filter((h) => h.kind === "web")
        .map((h) => ({ title: squash(h.title), url: h.url, snippet: squash(h.snippet) }));
      assert.deepEqual(read, expected);
    }),
    { numRuns: RUNS, ...conformanceSeed() },
  );
});

test("Wikipedia's results read back: each title's own page address, snippets as their plain text", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.record({ title: phrase, snippet: phrase }), { maxLength: 10 }),
      async (pages) => {
        const body = {
          query: {
            search: pages.map((p) => ({
              ns: 0,
              title: p.title,
              // A whole word marked, as Wikipedia marks the words it matched.
              snippet: escapeMarkup(p.snippet).replace(
                /(^| )([A-Za-z0-9]{3,})(?= |$)/,
                '$1<span class="searchmatch">$2</span>',
              ),
            })),
          },
        };
        const read = await readWikipedia(
          JSON.parse(JSON.stringify(body)),
          "https://en.wikipedia.org",
        );
        assert.equal(read.length, pages.length);
        for (const [i, got] of read.entries()) {
          const page = pages[i] as { title: string; snippet: string };
          assert.equal(got.title, page.title);
          assert.equal(
            decodeURIComponent(new URL(got.url).pathname.slice("/wiki/".length)).replaceAll(
              "_",
              " ",
            ),
            page.title.replaceAll("_", " "),
          );
          assert.equal(got.snippet, squash(page.snippet));
        }
      },
    ),
    { numRuns: RUNS, ...conformanceSeed() },
  );
});

test("every line of an input lands in exactly one chunk, in order, each within the size", () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.oneof(
          fc.string({ maxLength: 300 }),
          fc.constant(""),
          fc.string({ unit: "grapheme", maxLength: 50 }),
        ),
        { maxLength: 200 },
      ),
      fc.integer({ min: 64, max: 4096 }),
      (lines, size) => {
        const text = lines.join("\n");
        const chunks = cutIntoChunks(text, size);
        assert.equal(chunks.join(""), text);
        for (const chunk of chunks)
          assert.ok(Buffer.byteLength(chunk) <= size, `${Buffer.byteLength(chunk)} > ${size}`);
      },
    ),
    { numRuns: RUNS * 3, ...conformanceSeed() },
  );
});

const paper = fc.record({
  id: fc.stringMatching(/^\d{4}\.\d{5}v\d$/),
  title: phrase,
  summary: phrase,
  authors: fc.array(phrase, { minLength: 1, maxLength: 6 }),
  category: fc.constantFrom("cs.LG", "hep-ex", "math.AG", "q-bio.NC"),
});

function atomFeed(papers: Paper[]): string {
  const entries = papers.map(
    (
      p,
    ) => `<entry><id>http://arxiv.org/abs/${p.id}</id><updated>2024-01-02T00:00:00Z</updated><published>2024-01-01T00:00:00Z</published>
<title>${escapeMarkup(p.title)}</title><summary>  ${escapeMarkup(p.summary)}
</summary>${p.authors.map((a) => `<author><name>${escapeMarkup(a)}</name></author>`).join("")}
<link href="http://arxiv.org/abs/${p.id}" rel="alternate" type="text/html"/><link title="pdf" href="http://arxiv.org/pdf/${p.id}" rel="related" type="application/pdf"/>
<arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term="${p.category}" scheme="http://arxiv.org/schemas/atom"/><category term="${p.category}" scheme="http://arxiv.org/schemas/atom"/></entry>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom"><title type="html">ArXiv Query</title><opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">${papers.length}</opensearch:totalResults>${entries.join("\n")}</feed>`;
}

test("arXiv's Atom entries read back exactly: ids, titles, authors, abstracts, categories, links", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(paper, { maxLength: 8 }), async (papers) => {
      const found = await readFeed(atomFeed(papers));
      assert.equal(found.total, papers.length);
      assert.deepEqual(
        found.papers.map((p) => [p.id, p.title, p.authors, p.summary, p.primaryCategory, p.pdf]),
        papers.map((p) => [
          `http://arxiv.org/abs/${p.id}`,
          squash(p.title),
          p.authors.map(squash),
          squash(p.summary).slice(0, 699) + (squash(p.summary).length > 700 ? "…" : ""),
          p.category,
          `http://arxiv.org/pdf/${p.id}`,
        ]),
      );
    }),
    { numRuns: RUNS, ...conformanceSeed() },
  );
});
