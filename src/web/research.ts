// research: search, fetch the best few pages, summarise each for the question, and put the notes
// together as a short brief with numbered sources that fits the given budget. Each step is reported
// as progress; the signal stops it between and within steps.

import { redactUrl } from "./redact-url.ts";
import type { SearchHit } from "./search-hit.ts";
import type { WebClient } from "./web-client.ts";
import { fetchPage } from "./web-fetch.ts";
import type { WebSearch } from "./web-search.ts";

/** Summarises a page's text for a question within `maxBytes`; the runtime brings the model. */
export type Summarise = (
  input: { question: string; title: string; url: string; text: string; maxBytes: number },
  signal: AbortSignal,
) => Promise<string>;

export interface ResearchParts {
  search: WebSearch;
  client: WebClient;
  summarise: Summarise;
  progress: (message: string) => void;
  /** Most bytes of the brief. */
  budgetBytes: number;
  /** Pages read (default 3). */
  pages?: number;
  /** Most bytes of one page's text given to the summariser. */
  pageBytes?: number;
}

/** A page read for a question: its note (a summary for the question) and where it came from. */
export interface ResearchSource {
  title: string;
  url: string;
  note: string;
}

/** What one question's search and reading found. */
export interface ResearchNotes {
  sources: ResearchSource[];
  /** Pages that could not be read, each with why. */
  skipped: string[];
  /** The search's hits, for a brief with no page read. */
  hits: SearchHit[];
  /** Search backends that failed while others answered. */
  failedBackends: string[];
}

/** The brief, or throws (search unavailable, cancelled). */
export async function research(
  question: string,
  parts: ResearchParts,
  signal: AbortSignal,
): Promise<string> {
  const notes = await gatherNotes(question, parts, signal);
  const { sources, skipped } = notes;
  const lines = [`Research brief: ${question}`, ""];
  if (sources.length === 0) {
    lines.push(
      "No page could be read, so there is no brief. The search found:",
      ...notes.hits.slice(0, 5).map((hit, i) => `${i + 1}. ${hit.title} — ${redactUrl(hit.url)}`),
    );
  } else {
    for (const [i, source] of sources.entries()) lines.push(`[${i + 1}] ${source.note}`, "");
    lines.push("Sources:");
    for (const [i, source] of sources.entries())
      lines.push(`[${i + 1}] ${source.title} — ${redactUrl(source.url)}`);
  }
  if (skipped.length > 0) lines.push("", "Not read:", ...skipped.map((line) => `- ${line}`));
  if (notes.failedBackends.length > 0)
    lines.push("", `Search backends that failed: ${notes.failedBackends.join("; ")}`);
  return clip(lines.join("\n"), parts.budgetBytes);
}

/** Searches, reads the best few pages and summarises each for the question. */
export async function gatherNotes(
  question: string,
  parts: ResearchParts,
  signal: AbortSignal,
): Promise<ResearchNotes> {
  const wanted = parts.pages ?? 3;
  parts.progress(`searching: ${question}`);
  const found = await parts.search.search(question, Math.max(8, wanted * 2), signal);
  const sources: ResearchSource[] = [];
  const skipped: string[] = [];
  const perSource = Math.max(300, Math.floor((parts.budgetBytes - 600) / wanted));
  for (const hit of found.hits) {
    if (sources.length >= wanted) break;
    signal.throwIfAborted();
    parts.progress(`reading ${sources.length + 1} of ${wanted}: ${redactUrl(hit.url)}`);
    let text: string;
    let title = hit.title;
    try {
      const fetched = await fetchPage(parts.client, hit.url, { signal });
      text = fetched.page.text;
      title = fetched.page.title ?? hit.title;
    } catch (error) {
      signal.throwIfAborted();
      skipped.push(`${redactUrl(hit.url)}: ${(error as Error).message}`);
      continue;
    }
    if (!text.trim()) {
      skipped.push(`${redactUrl(hit.url)}: no readable text`);
      continue;
    }
    parts.progress(`summarising: ${title || redactUrl(hit.url)}`);
    const clipped = clip(text, parts.pageBytes ?? 24_000);
    let note: string;
    try {
      note = await parts.summarise(
        { question, title, url: hit.url, text: clipped, maxBytes: perSource },
        signal,
      );
    } catch (error) {
      signal.throwIfAborted();
      // The model could not summarise: the snippet stands in, and the brief says so.
      note = `(not summarised: ${(error as Error).message}) ${hit.snippet}`;
    }
    sources.push({ title: title || hit.url, url: hit.url, note: clip(note.trim(), perSource) });
  }
  parts.progress(`done: ${sources.length} source${sources.length === 1 ? "" : "s"}`);
  return { sources, skipped, hits: found.hits, failedBackends: found.failed };
}

/** At most `maxBytes` of UTF-8, cut at a character, marked when cut. */
export function clip(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  return `${bytes
    .subarray(0, Math.max(0, maxBytes - 40))
    .toString("utf8")
    .replace(/\uFFFD$/, "")} […cut to fit]`;
}
