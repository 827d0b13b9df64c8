// The search backends that need no key: DuckDuckGo's HTML results page (the page it serves to
// text browsers) and Wikipedia's search API. The HTML is read with linkedom, loaded on first use.
import { SearchFailure, type SearchHit } from "./search-hit.ts";
import type { WebResponse } from "./web-client.ts";

/** The results of DuckDuckGo's HTML page: ads left out, its redirect links unwrapped. */
export async function readDuckDuckGo(answer: WebResponse, count: number): Promise<SearchHit[]> {
  const html = answer.body.toString("utf8");
  // A bot check answers 202 (or 200) with a challenge form and no results: it is no "no results".
  if (answer.status === 202 || /anomaly-modal|challenge-form|bots use DuckDuckGo/i.test(html))
    throw new SearchFailure(
      `DuckDuckGo asked for a bot check (HTTP ${answer.status}) instead of results; try again later or configure a keyed backend`,
    );
  if (answer.status === 429 || answer.status === 403)
    throw new SearchFailure(`rate limited (HTTP ${answer.status})`);
  if (answer.status < 200 || answer.status >= 300) throw new SearchFailure(`HTTP ${answer.status}`);
  const { parseHTML } = await import("linkedom");
  const { document } = parseHTML(html);
  const hits: SearchHit[] = [];
  for (const result of document.querySelectorAll(".result")) {
    if (hits.length >= count) break;
    if (/\bresult--ad\b/.test(result.getAttribute("class") ?? "")) continue;
    const link = result.querySelector("a.result__a");
    const url = unwrap(link?.getAttribute("href") ?? "");
    if (!link || !url) continue;
    hits.push({
      title: squash(link.textContent ?? ""),
      url,
      snippet: squash(result.querySelector(".result__snippet")?.textContent ?? ""),
    });
  }
  // No result block at all, and no word of none: the page is not one nex knows how to read.
  const understood =
    document.querySelector(".result, .no-results") !== null || /No\s+results/i.test(html);
  if (hits.length === 0 && !understood)
    throw new SearchFailure(
      "its page had no results nex could read (its layout may have changed); configure a keyed backend",
    );
  return hits;
}

/**
 * A result link as DuckDuckGo writes it: `//duckduckgo.com/l/?uddg=<the address>&rut=…`, or the
 * address itself. Its own ad links (`/y.js`) and anything not http(s) give null.
 */
function unwrap(href: string): string | null {
  const url = URL.parse(href, "https://duckduckgo.com/");
  if (!url) return null;
  if (/(^|\.)duckduckgo\.com$/i.test(url.hostname)) {
    const target = url.pathname.startsWith("/l/") ? url.searchParams.get("uddg") : null;
    return target && /^https?:\/\//i.test(target) ? target : null;
  }
  return /^https?:$/.test(url.protocol) ? url.href : null;
}

/** Wikipedia's `list=search` answer: each page's title, address and snippet (its markup removed). */
export async function readWikipedia(
  body: Record<string, unknown>,
  base: string,
): Promise<SearchHit[]> {
  // MediaWiki says an error in the body, with HTTP 200.
  const error = body.error as { code?: unknown; info?: unknown } | undefined;
  if (error && typeof error === "object")
    throw new SearchFailure(
      `the API said ${String(error.code ?? "error")}: ${String(error.info ?? "")}`,
    );
  const query = body.query as { search?: unknown } | undefined;
  if (!query || !Array.isArray(query.search))
    throw new SearchFailure("its answer had no search results list");
  const { parseHTML } = await import("linkedom");
  const plain = (html: string) =>
    squash(parseHTML(`<html><body>${html}</body></html>`).document.body?.textContent ?? "");
  return query.search
    .filter(
      (page): page is { title: string; snippet?: unknown } =>
        Boolean(page) && typeof (page as { title?: unknown }).title === "string",
    )
    .map((page) => ({
      title: page.title,
      url: `${base}/wiki/${encodeURIComponent(page.title.replaceAll(" ", "_"))}`,
      snippet: typeof page.snippet === "string" ? plain(page.snippet) : "",
    }));
}

function squash(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
