// The keyless search APIs of developer sites: Hacker News (Algolia's search API), Stack Exchange
// (Stack Overflow's questions) and GitHub (repository search). Each answers JSON without a key, each
// limits how often: a limit, or Stack Exchange's `backoff` (the seconds it asks for before the next
// request), is a failure saying when to ask again, which the search's breaker honours.
import { backendKey, restFor } from "./backend-breaker.ts";
import { SearchFailure, type SearchHit } from "./search-hit.ts";
import type { WebClient, WebResponse } from "./web-client.ts";

export type KeylessApi = "hackernews" | "stackexchange" | "github";

/** Asks one keyless API; throws SearchFailure saying why it gave no results. */
export async function searchKeylessApi(
  type: KeylessApi,
  base: string,
  query: string,
  count: number,
  client: WebClient,
  signal: AbortSignal,
): Promise<SearchHit[]> {
  const get = (path: string, params: Record<string, string>, accept = "application/json") =>
    client.request(`${base}${path}?${new URLSearchParams(params)}`, {
      headers: { accept },
      signal,
      trusted: true,
    });
  const limit = String(Math.min(count, 20));
  switch (type) {
    case "hackernews": {
      const answer = await get("/api/v1/search", { query, tags: "story", hitsPerPage: limit });
      return readHackerNews(jsonOf(answer, "Hacker News"));
    }
    case "stackexchange": {
      const answer = await get("/2.3/search/advanced", {
        q: query,
        site: "stackoverflow",
        order: "desc",
        sort: "relevance",
        pagesize: limit,
      });
      const body = jsonOf(answer, "Stack Exchange");
      // A pause it asks for while answering holds for the next request all the same.
      if (typeof body.backoff === "number" && body.backoff > 0)
        restFor(
          backendKey(type, base),
          body.backoff * 1000,
          `Stack Exchange asked for a pause of ${body.backoff} s`,
        );
      return readStackExchange(body);
    }
    case "github": {
      const answer = await get(
        "/search/repositories",
        { q: query, per_page: limit },
        "application/vnd.github+json",
      );
      return readGitHub(answer);
    }
  }
}

/** Algolia's hits: a story's own address, or its discussion page when it has none (Ask HN). */
function readHackerNews(body: Record<string, unknown>): SearchHit[] {
  if (!Array.isArray(body.hits)) throw new SearchFailure("its answer had no hits list");
  return records(body.hits).flatMap((hit) => {
    const id = text(hit.objectID);
    const discussion = id ? `https://news.ycombinator.com/item?id=${encodeURIComponent(id)}` : "";
    const url = text(hit.url) || discussion;
    if (!url || !text(hit.title)) return [];
    const points = typeof hit.points === "number" ? `${hit.points} points` : "";
    const comments = typeof hit.num_comments === "number" ? `${hit.num_comments} comments` : "";
    const said = [points, comments].filter(Boolean).join(", ");
    const story = squash(stripTags(text(hit.story_text))).slice(0, 300);
    const where = url === discussion ? "" : ` (discussion: ${discussion})`;
    return [
      {
        title: decodeEntities(text(hit.title)),
        url,
        snippet: [`Hacker News${said ? `, ${said}` : ""}${where}`, story]
          .filter(Boolean)
          .join(": "),
      },
    ];
  });
}

/** Stack Exchange's items: titles come HTML-escaped; an error or a quota of none is said in its words. */
function readStackExchange(body: Record<string, unknown>): SearchHit[] {
  if (typeof body.error_id === "number")
    throw new SearchFailure(
      `the API said ${text(body.error_name) || body.error_id}: ${text(body.error_message)}`,
    );
  if (!Array.isArray(body.items)) throw new SearchFailure("its answer had no items list");
  const hits = records(body.items).flatMap((item) => {
    const url = text(item.link);
    if (!url) return [];
    const tags = Array.isArray(item.tags) ? item.tags.filter((t) => typeof t === "string") : [];
    const answered = item.is_answered === true ? "answered" : "not answered";
    const score = typeof item.score === "number" ? `score ${item.score}` : "";
    return [
      {
        title: decodeEntities(text(item.title)),
        url,
        snippet: [
          `Stack Overflow, ${answered}`,
          score,
          tags.length ? `tags ${tags.join(", ")}` : "",
        ]
          .filter(Boolean)
          .join("; "),
      },
    ];
  });
  return hits;
}

/** GitHub's repositories; its limits answer 403 or 429 with `x-ratelimit-remaining: 0`. */
function readGitHub(answer: WebResponse): SearchHit[] {
  const remaining = answer.headers["x-ratelimit-remaining"];
  if (
    (answer.status === 403 || answer.status === 429) &&
    (remaining === "0" || answer.headers["retry-after"])
  ) {
    const reset = Number(answer.headers["x-ratelimit-reset"]);
    const retry = Number(answer.headers["retry-after"]);
    const wait = Number.isFinite(retry)
      ? retry
      : Number.isFinite(reset)
        ? Math.max(0, Math.ceil(reset - Date.now() / 1000))
        : null;
    throw new SearchFailure(
      `rate limited (HTTP ${answer.status}: GitHub allows a few searches a minute without a token)${wait !== null ? `; it says to wait ${wait} s` : ""}`,
      wait === null ? null : wait * 1000,
    );
  }
  const body = jsonOf(answer, "GitHub");
  if (!Array.isArray(body.items)) throw new SearchFailure("its answer had no items list");
  return records(body.items).flatMap((repo) => {
    const url = text(repo.html_url);
    if (!url) return [];
    const stars = typeof repo.stargazers_count === "number" ? `${repo.stargazers_count} stars` : "";
    const language = text(repo.language);
    return [
      {
        title: text(repo.full_name) || url,
        url,
        snippet: [text(repo.description), [language, stars].filter(Boolean).join(", ")]
          .filter(Boolean)
          .join(" · "),
      },
    ];
  });
}

/** The JSON body of an answer; a failure in the API's own words when it is not a 2xx with JSON. */
function jsonOf(answer: WebResponse, name: string): Record<string, unknown> {
  let body: unknown = null;
  try {
    body = JSON.parse(answer.body.toString("utf8"));
  } catch {
    body = null;
  }
  const record = body && typeof body === "object" ? (body as Record<string, unknown>) : null;
  if (answer.status >= 200 && answer.status < 300) {
    if (record) return record;
    throw new SearchFailure(`${name} answered ${answer.status} with something that is not JSON`);
  }
  const said = text(record?.error_message) || text(record?.message) || text(record?.error) || "";
  const retry = Number(answer.headers["retry-after"]);
  if (answer.status === 429)
    throw new SearchFailure(
      `rate limited (HTTP 429${said ? `: ${said}` : ""})${Number.isFinite(retry) ? `; it says to wait ${retry} s` : ""}`,
      Number.isFinite(retry) ? retry * 1000 : null,
    );
  // Stack Exchange says its own errors (a throttle, a bad parameter) in a 400 body.
  if (record && typeof record.error_id === "number") {
    // A throttle says how long in its message ("... more requests available in 42 seconds").
    const seconds = /(\d+) seconds?/.exec(said)?.[1];
    throw new SearchFailure(
      `the API said ${text(record.error_name) || record.error_id}: ${said} (HTTP ${answer.status})`,
      seconds ? Number(seconds) * 1000 : null,
    );
  }
  throw new SearchFailure(`HTTP ${answer.status}${said ? `: ${said.slice(0, 160)}` : ""}`);
}

function records(value: unknown[]): Record<string, unknown>[] {
  return value.filter(
    (item): item is Record<string, unknown> => Boolean(item) && typeof item === "object",
  );
}

function text(value: unknown): string {
  return typeof value === "string" ? value.trim() : "";
}

function squash(value: string): string {
  return value.replace(/\s+/g, " ").trim();
}

function stripTags(value: string): string {
  return decodeEntities(value.replace(/<[^>]*>/g, " "));
}

const NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
};

/** `&quot;`, `&#39;`, `&#x2F;` and the like as the characters they stand for. */
function decodeEntities(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code =
        name[1]?.toLowerCase() === "x" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff
        ? String.fromCodePoint(code)
        : whole;
    }
    return NAMED[name.toLowerCase()] ?? whole;
  });
}
