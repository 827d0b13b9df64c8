// One small adapter per search API: how to ask, and how to read its answer and its errors. Each
// backend is one the user configured (its address is trusted; its key comes from the environment).
import { spaced } from "./request-spacing.ts";
import { SearchFailure, type SearchHit } from "./search-hit.ts";
import type { WebClient, WebResponse } from "./web-client.ts";

export { SearchFailure, type SearchHit } from "./search-hit.ts";

/** A backend: one the user configured, or one of the keyless ones (DuckDuckGo, Wikipedia, ...). */
export interface SearchBackend {
  type:
    | "searxng"
    | "brave"
    | "tavily"
    | "exa"
    | "duckduckgo"
    | "wikipedia"
    | "hackernews"
    | "stackexchange"
    | "github";
  /** The API's base address (a SearXNG instance's root; the public API's by default). */
  url: string;
  /** The key, read from `keyEnv`; null when that variable is unset. */
  key: string | null;
  /** The variable the key is read from, to name in errors. */
  keyEnv: string | null;
}

export const DEFAULT_URLS: Record<SearchBackend["type"], string> = {
  searxng: "",
  brave: "https://api.search.brave.com",
  tavily: "https://api.tavily.com",
  exa: "https://api.exa.ai",
  duckduckgo: "https://html.duckduckgo.com",
  wikipedia: "https://en.wikipedia.org",
  hackernews: "https://hn.algolia.com",
  stackexchange: "https://api.stackexchange.com",
  github: "https://api.github.com",
};

/** DuckDuckGo's HTML page answers a burst of searches with a bot check: one a second at most. */
const DUCKDUCKGO_SPACING_MS = 1_000;

/** The backends that need no key. */
export const KEYLESS: readonly SearchBackend["type"][] = [
  "duckduckgo",
  "wikipedia",
  "hackernews",
  "stackexchange",
  "github",
];

/** Asks one backend; throws SearchFailure saying why it gave no results. */
export async function searchWith(
  backend: SearchBackend,
  query: string,
  count: number,
  client: WebClient,
  signal: AbortSignal,
): Promise<SearchHit[]> {
  if (!URL.parse(backend.url))
    throw new SearchFailure(
      `no address: give it a "url"${backend.type === "searxng" ? " (your instance, e.g. http://localhost:8888) or set SEARXNG_URL" : ""}`,
    );
  if (backend.type !== "searxng" && !KEYLESS.includes(backend.type) && !backend.key)
    throw new SearchFailure(`no key: the environment variable ${backend.keyEnv} is not set`);
  const base = backend.url.replace(/\/+$/, "");
  const json = { accept: "application/json" };
  const post = (path: string, headers: Record<string, string>, body: unknown) =>
    client.request(`${base}${path}`, {
      method: "POST",
      headers: { ...json, "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
      signal,
      trusted: true,
    });
  switch (backend.type) {
    case "searxng": {
      const answer = await client.request(
        `${base}/search?${new URLSearchParams({ q: query, format: "json" })}`,
        { headers: json, signal, trusted: true },
      );
      const body = read(answer, "SearXNG");
      return list(body, "results").map((hit) => ({
        title: text(hit.title),
        url: text(hit.url),
        snippet: text(hit.content),
      }));
    }
    case "duckduckgo": {
      // The HTML page (no JavaScript): the one DuckDuckGo serves to text browsers, no key needed.
      const answer = await spaced(`duckduckgo ${base}`, DUCKDUCKGO_SPACING_MS, signal, () =>
        client.request(`${base}/html/?${new URLSearchParams({ q: query })}`, {
          headers: { accept: "text/html" },
          signal,
          trusted: true,
        }),
      );
      return (await import("./keyless-backends.ts")).readDuckDuckGo(answer, count);
    }
    case "wikipedia": {
      const answer = await client.request(
        `${base}/w/api.php?${new URLSearchParams({
          action: "query",
          list: "search",
          srsearch: query,
          srlimit: String(Math.min(count, 20)),
          format: "json",
          formatversion: "2",
          utf8: "1",
        })}`,
        { headers: json, signal, trusted: true },
      );
      const body = read(answer, "Wikipedia");
      return (await import("./keyless-backends.ts")).readWikipedia(body, base);
    }
    case "hackernews":
    case "stackexchange":
    case "github": {
      const { searchKeylessApi } = await import("./keyless-apis.ts");
      return searchKeylessApi(backend.type, base, query, count, client, signal);
    }
    case "brave": {
      const answer = await client.request(
        `${base}/res/v1/web/search?${new URLSearchParams({ q: query, count: String(Math.min(count, 20)) })}`,
        { headers: { ...json, "x-subscription-token": backend.key ?? "" }, signal, trusted: true },
      );
      const body = read(answer, "Brave");
      const web = (body.web ?? {}) as Record<string, unknown>;
      return list(web, "results").map((hit) => ({
        title: text(hit.title),
        url: text(hit.url),
        snippet: stripTags(text(hit.description)),
      }));
    }
    case "tavily": {
      const answer = await post(
        "/search",
        { authorization: `Bearer ${backend.key}` },
        { query, max_results: Math.min(count, 20) },
      );
      return list(read(answer, "Tavily"), "results").map((hit) => ({
        title: text(hit.title),
        url: text(hit.url),
        snippet: text(hit.content),
      }));
    }
    case "exa": {
      const answer = await post(
        "/search",
        { "x-api-key": backend.key ?? "" },
        { query, numResults: Math.min(count, 20), contents: { highlights: true } },
      );
      return list(read(answer, "Exa"), "results").map((hit) => {
        const highlights = Array.isArray(hit.highlights)
          ? hit.highlights.map(text).join(" … ")
          : "";
        return {
          title: text(hit.title),
          url: text(hit.url),
          snippet: highlights || text(hit.summary) || text(hit.text).slice(0, 300),
        };
      });
    }
  }
}

/** The JSON body of a 2xx answer, or a SearchFailure that says what the API said. */
function read(answer: WebResponse, name: string): Record<string, unknown> {
  const raw = answer.body.toString("utf8");
  let body: unknown = null;
  try {
    body = JSON.parse(raw);
  } catch {
    body = null;
  }
  if (answer.status >= 200 && answer.status < 300) {
    if (body && typeof body === "object") return body as Record<string, unknown>;
    throw new SearchFailure(
      `${name} answered ${answer.status} with something that is not JSON (${answer.contentType || "no type"})${name === "SearXNG" ? '; enable the json format under "search: formats" in its settings.yml' : ""}`,
    );
  }
  const said =
    messageIn(body) ??
    raw
      .replace(/<[^>]*>/g, " ")
      .replace(/\s+/g, " ")
      .trim()
      .slice(0, 160);
  const retry = answer.headers["retry-after"] ?? answer.headers["x-ratelimit-reset"];
  if (answer.status === 429 || answer.status === 432 || answer.status === 433)
    throw new SearchFailure(
      `rate or usage limit (HTTP ${answer.status}${said ? `: ${said}` : ""})${retry ? `; it says to wait ${retry.split(",")[0]?.trim()} s` : ""}`,
    );
  // Brave answers a bad subscription token with 422 SUBSCRIPTION_TOKEN_INVALID.
  const keyWords = /(token|key)\b.*\b(invalid|missing|expired)|unauthori[sz]ed/i.test(said);
  if (answer.status === 401 || answer.status === 403 || keyWords)
    throw new SearchFailure(
      `the key was refused (HTTP ${answer.status}${said ? `: ${said}` : ""})${name === "SearXNG" ? "; SearXNG refuses format=json unless its settings.yml lists json under search: formats" : "; check the key"}`,
    );
  throw new SearchFailure(`HTTP ${answer.status}${said ? `: ${said}` : ""}`);
}

/** The error text APIs put in their bodies: `error`, `message`, `detail`, nested one level. */
function messageIn(body: unknown): string | null {
  if (!body || typeof body !== "object") return typeof body === "string" ? body : null;
  const record = body as Record<string, unknown>;
  for (const key of ["error", "detail", "message"]) {
    const value = record[key];
    if (typeof value === "string" && value) return value.slice(0, 200);
    if (value && typeof value === "object") {
      const inner = messageIn(value);
      if (inner) return inner;
    }
  }
  return null;
}

function list(body: Record<string, unknown>, key: string): Record<string, unknown>[] {
  const value = body[key];
  return Array.isArray(value)
    ? value.filter(
        (item): item is Record<string, unknown> => Boolean(item) && typeof item === "object",
      )
    : [];
}

function text(value: unknown): string {
  return typeof value === "string" ? value.trim() : "";
}

function stripTags(value: string): string {
  return value.replace(/<\/?[a-z][^>]*>/gi, "");
}
