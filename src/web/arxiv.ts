// arXiv's public query API (export.arxiv.org/api/query): an Atom feed, read with linkedom's XML
// parser (loaded on first use). arXiv asks for one request every three seconds: each query waits
// its turn (request-spacing.ts), and a limit or an error entry is said in arXiv's own words.
import { spaced } from "./request-spacing.ts";
import { SearchFailure } from "./search-hit.ts";
import type { WebClient } from "./web-client.ts";

export const ARXIV_URL = "https://export.arxiv.org";
/** Most papers one query asks for: a page of results, not a harvest. */
export const ARXIV_MAX_RESULTS = 50;
/** arXiv's terms: no more than one request every three seconds. */
export const ARXIV_SPACING_MS = 3_000;
/** An abstract is cut here; the link has the rest. */
const ABSTRACT_CHARS = 700;

export interface ArxivPaper {
  id: string;
  title: string;
  authors: string[];
  summary: string;
  published: string;
  updated: string;
  primaryCategory: string | null;
  categories: string[];
  pdf: string | null;
  doi: string | null;
}

export interface ArxivQuery {
  query: string;
  maxResults: number;
  sort: "relevance" | "submitted" | "updated";
}

const FIELDS = /\b(ti|au|abs|co|jr|cat|rn|id|all):/;
const ID = /^(\d{4}\.\d{4,5}|[a-z-]+(\.[A-Z]{2})?\/\d{7})(v\d+)?$/i;

/** arXiv's search syntax: the model's own (`ti:`, `au:`, `cat:`, AND/OR) as given, plain words ANDed. */
export function searchQuery(text: string): { search_query: string } | { id_list: string } {
  const trimmed = text.trim();
  if (trimmed.split(/[\s,]+/).every((part) => ID.test(part)))
    return { id_list: trimmed.split(/[\s,]+/).join(",") };
  if (FIELDS.test(trimmed)) return { search_query: trimmed };
  const words = trimmed.match(/"[^"]+"|\S+/g) ?? [];
  return { search_query: words.map((word) => `all:${word}`).join(" AND ") };
}

/** One query; throws SearchFailure with arXiv's words, or the client's WebError. */
export async function searchArxiv(
  client: WebClient,
  base: string,
  query: ArxivQuery,
  signal: AbortSignal,
): Promise<{ total: number | null; papers: ArxivPaper[] }> {
  const sortBy = { relevance: "relevance", submitted: "submittedDate", updated: "lastUpdatedDate" };
  const params = new URLSearchParams({
    ...searchQuery(query.query),
    start: "0",
    max_results: String(Math.max(1, Math.min(query.maxResults, ARXIV_MAX_RESULTS))),
    sortBy: sortBy[query.sort],
    sortOrder: "descending",
  });
  const answer = await spaced(`arxiv ${base}`, ARXIV_SPACING_MS, signal, () =>
    client.request(`${base.replace(/\/+$/, "")}/api/query?${params}`, {
      headers: { accept: "application/atom+xml" },
      signal,
      trusted: true,
    }),
  );
  const xml = answer.body.toString("utf8");
  if (answer.status === 429 || answer.status === 503) {
    const wait = answer.headers["retry-after"];
    throw new SearchFailure(
      `arXiv is limiting requests (HTTP ${answer.status})${wait ? `; it says to wait ${wait} s` : ""}. Try again later.`,
    );
  }
  const feed = /<feed[\s>]/.test(xml) ? await readFeed(xml) : null;
  if (feed?.error) throw new SearchFailure(`arXiv refused the query: ${feed.error}.`);
  if (answer.status < 200 || answer.status >= 300 || !feed)
    throw new SearchFailure(
      `arXiv answered HTTP ${answer.status} with ${feed ? "no results" : "something that is not an Atom feed"}.`,
    );
  return { total: feed.total, papers: feed.papers };
}

/** arXiv's Atom feed: its papers, its total, and the words of its error entry if it holds one. */
export async function readFeed(
  xml: string,
): Promise<{ total: number | null; papers: ArxivPaper[]; error: string | null }> {
  const { DOMParser } = await import("linkedom");
  const document = new DOMParser().parseFromString(xml, "text/xml") as unknown as XmlNode;
  const text = (node: XmlNode, tag: string) =>
    squash(node.getElementsByTagName(tag)[0]?.textContent ?? "");
  const totalText = text(document, "opensearch:totalResults");
  const papers: ArxivPaper[] = [];
  let error: string | null = null;
  for (const entry of Array.from(document.getElementsByTagName("entry"))) {
    const id = text(entry, "id");
    // An error comes as an entry whose id is an errors address and whose summary says what is wrong.
    if (/\/api\/errors/.test(id)) {
      error = text(entry, "summary") || "an error with no words";
      continue;
    }
    const links = Array.from(entry.getElementsByTagName("link"));
    const pdf = links.find((link) => link.getAttribute("title") === "pdf")?.getAttribute("href");
    const summary = text(entry, "summary");
    papers.push({
      id,
      title: text(entry, "title"),
      authors: Array.from(entry.getElementsByTagName("author")).map((author) =>
        text(author, "name"),
      ),
      summary:
        summary.length > ABSTRACT_CHARS ? `${summary.slice(0, ABSTRACT_CHARS - 1)}…` : summary,
      published: text(entry, "published").slice(0, 10),
      updated: text(entry, "updated").slice(0, 10),
      primaryCategory:
        entry.getElementsByTagName("arxiv:primary_category")[0]?.getAttribute("term") ?? null,
      categories: Array.from(entry.getElementsByTagName("category"))
        .map((category) => category.getAttribute("term") ?? "")
        .filter(Boolean),
      pdf: pdf ?? null,
      doi: text(entry, "arxiv:doi") || null,
    });
  }
  const total = Number.parseInt(totalText, 10);
  return { total: Number.isFinite(total) ? total : null, papers, error };
}

/** The papers as the model reads them: one block each, newest facts first. */
export function describePapers(
  query: string,
  found: { total: number | null; papers: ArxivPaper[] },
): string {
  if (found.papers.length === 0)
    return `arXiv has no papers for "${query}". Try other words, or fields such as ti:, au:, abs:, cat:.`;
  const of = found.total !== null ? ` of ${found.total}` : "";
  const lines = [`${found.papers.length}${of} arXiv papers for "${query}":`];
  for (const [i, paper] of found.papers.entries()) {
    const authors =
      paper.authors.length > 4
        ? `${paper.authors.slice(0, 3).join(", ")} et al. (${paper.authors.length} authors)`
        : paper.authors.join(", ");
    const date =
      paper.updated && paper.updated !== paper.published
        ? `${paper.published}, updated ${paper.updated}`
        : paper.published;
    const category = paper.primaryCategory ?? paper.categories[0] ?? "";
    lines.push(
      `${i + 1}. ${paper.title}`,
      `   ${authors} · ${date}${category ? ` · ${category}` : ""}${paper.doi ? ` · doi ${paper.doi}` : ""}`,
      `   ${paper.id}${paper.pdf ? ` (PDF ${paper.pdf})` : ""}`,
      `   ${paper.summary}`,
    );
  }
  return lines.join("\n");
}

/** What of linkedom's XML nodes is read here (the project has no DOM types). */
interface XmlNode {
  textContent: string | null;
  getAttribute(name: string): string | null;
  getElementsByTagName(tag: string): ArrayLike<XmlNode>;
}

function squash(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
