// web_search: every configured backend asked at once, answers merged by URL (reciprocal rank), the
// top N kept, and the answer cached for the session. No backend, or none answering, is an error
// that names each backend tried and why it failed: never an empty list the model takes for "none".
// A backend that keeps failing, or asked for a pause, rests (`backend-breaker.ts`) and is not asked.
import {
  type SearchBackend,
  SearchFailure,
  type SearchHit,
  searchWith,
} from "./search-backends.ts";
import { type WebClient, WebError } from "./web-client.ts";

/** What a search found. */
export interface SearchAnswer {
  hits: SearchHit[];
  /** The backends that answered. */
  answered: string[];
  /** The backends that failed, each with why, when others answered. */
  failed: string[];
  cached: boolean;
}

/** The reason a search found nothing to show, in words that say what to do. */
export class SearchUnavailable extends Error {
  override readonly name = "SearchUnavailable";
}

export const HOW_TO_CONFIGURE =
  'Configure a backend in the config file, e.g. "web": {"search": [{"type": "searxng", "url": "http://localhost:8888"}]} or {"type": "brave"} with BRAVE_API_KEY set (also "tavily" with TAVILY_API_KEY, "exa" with EXA_API_KEY).';

/** A session's search: backends, the client and the cache. */
export interface WebSearch {
  search(query: string, count: number, signal: AbortSignal): Promise<SearchAnswer>;
  backends: readonly SearchBackend[];
}

export function createWebSearch(backends: readonly SearchBackend[], client: WebClient): WebSearch {
  const cache = new Map<string, SearchAnswer>();
  return {
    backends,
    async search(query, count, signal) {
      const key = `${count}\n${query.trim().replace(/\s+/g, " ").toLowerCase()}`;
      const known = cache.get(key);
      if (known) return { ...known, cached: true };
      if (backends.length === 0)
        throw new SearchUnavailable(
          `No search backend is configured. ${HOW_TO_CONFIGURE} DuckDuckGo, Wikipedia, Hacker News and Stack Exchange need no key: they are asked unless "web": {"keyless": false}.`,
        );
      // Loaded with the first search: most sessions never search.
      const breaker = await import("./backend-breaker.ts");
      const keys = backends.map((backend) => breaker.backendKey(backend.type, backend.url));
      const settled = await Promise.allSettled(
        backends.map(async (backend, i) => {
          const resting = breaker.restingReason(keys[i] as string);
          if (resting) throw new SearchFailure(resting);
          return searchWith(backend, query, count, client, signal);
        }),
      );
      if (signal.aborted) throw new WebError("aborted", "The search was cancelled.");
      settled.forEach((result, i) => {
        const key = keys[i] as string;
        if (result.status === "fulfilled") breaker.recordSuccess(key);
        else if (!/^not asked: /.test(reason(result.reason)))
          breaker.recordFailure(
            key,
            reason(result.reason),
            result.reason instanceof SearchFailure ? result.reason.restMs : null,
          );
      });
      const answered: string[] = [];
      const failed: string[] = [];
      const ranked: SearchHit[][] = [];
      settled.forEach((result, i) => {
        const name = describe(backends[i] as SearchBackend);
        if (result.status === "fulfilled") {
          answered.push(name);
          ranked.push(result.value);
        } else failed.push(`${name}: ${reason(result.reason)}`);
      });
      if (answered.length === 0)
        throw new SearchUnavailable(
          `Web search failed: every backend failed (${failed.join("; ")}). ${
            failed.every((line) => /could not be (reached|resolved)|offline/.test(line))
              ? "nex seems to be offline: answer from what you know and say so, or tell the user."
              : "Tell the user what failed."
          } ${HOW_TO_CONFIGURE}`,
        );
      const answer: SearchAnswer = { hits: merge(ranked, count), answered, failed, cached: false };
      cache.set(key, answer);
      return answer;
    },
  };
}

/** `brave`, `searxng at http://localhost:8888`. */
export function describe(backend: SearchBackend): string {
  if (backend.type !== "searxng") return backend.type;
  return backend.url ? `searxng at ${backend.url}` : "searxng";
}

function reason(error: unknown): string {
  const message =
    error instanceof SearchFailure || error instanceof WebError
      ? error.message
      : ((error as Error)?.message ?? String(error));
  return message.replace(/\.$/, "");
}

/** Merged by URL: each list's rank counts 1/(60 + rank), the usual reciprocal-rank fusion. */
function merge(lists: SearchHit[][], count: number): SearchHit[] {
  const scored = new Map<string, { hit: SearchHit; score: number; first: number }>();
  let order = 0;
  for (const hits of lists) {
    hits.forEach((hit, rank) => {
      if (!/^https?:\/\//i.test(hit.url)) return;
      const key = canonical(hit.url);
      const known = scored.get(key);
      if (known) {
        known.score += 1 / (60 + rank);
        if (!known.hit.snippet && hit.snippet) known.hit = { ...known.hit, snippet: hit.snippet };
      } else scored.set(key, { hit, score: 1 / (60 + rank), first: order++ });
    });
  }
  return [...scored.values()]
    .sort((a, b) => b.score - a.score || a.first - b.first)
    .slice(0, count)
    .map((entry) => entry.hit);
}

/** One spelling per page: no fragment, no tracking parameters, no trailing slash, host in lower case. */
export function canonical(raw: string): string {
  const url = URL.parse(raw);
  if (!url) return raw;
  url.hash = "";
  for (const name of [...url.searchParams.keys()])
    if (/^(utm_|fbclid$|gclid$)/i.test(name)) url.searchParams.delete(name);
  const path = url.pathname.replace(/\/+$/, "") || "/";
  return `${url.protocol}//${url.host.toLowerCase()}${path}${url.search}`;
}
