// web_fetch: one URL fetched through the guarded client and read as text, with a header the model
// can trust (title, final address, type, sizes). A page larger than a result's share of the window
// is stored and paged by the tool host, like any large result.
import { formatCount } from "../protocol/index.ts";
import { type PageText, pageText, UnreadableType } from "./page-content.ts";
import { redactUrl } from "./redact-url.ts";
import { type WebClient, WebError, type WebResponse } from "./web-client.ts";

/** A page fetched and read. */
export interface FetchedPage {
  response: WebResponse;
  page: PageText;
}

/** Fetches and reads one page; throws WebError or UnreadableType with words for the model. */
export async function fetchPage(
  client: WebClient,
  url: string,
  options: { signal: AbortSignal; approvedHost?: string | null },
): Promise<FetchedPage> {
  const response = await client.request(url, {
    signal: options.signal,
    approvedHost: options.approvedHost ?? null,
    headers: {
      accept:
        "text/html,application/xhtml+xml,application/pdf,application/json,text/plain;q=0.9,*/*;q=0.5",
    },
  });
  if (response.status < 200 || response.status >= 300) {
    const start = response.body.subarray(0, 300).toString("utf8").replace(/\s+/g, " ").trim();
    throw new WebError(
      "network",
      `${redactUrl(response.url)} answered HTTP ${response.status}${start ? ` (it says: ${start.slice(0, 200)})` : ""}; nothing was read.`,
    );
  }
  try {
    return { response, page: await pageText(response) };
  } catch (error) {
    if (error instanceof UnreadableType) throw error;
    throw new UnreadableType(
      `${redactUrl(response.url)} is ${response.contentType || "of no stated type"} but could not be read as such (${(error as Error).message}).`,
    );
  }
}

/** The result the model reads: a header line per fact, then the text. */
export function describePage({ response, page }: FetchedPage): string {
  const lines = [`Title: ${page.title ?? "(none)"}`, `URL: ${redactUrl(response.url)}`];
  if (response.redirects.length > 0)
    lines.push(`Redirected from: ${response.redirects.map(redactUrl).join(" → ")}`);
  const textBytes = Buffer.byteLength(page.text, "utf8");
  lines.push(
    `Type: ${page.mediaType}${page.kind === "html" ? " (main content as markdown; navigation and boilerplate left out)" : ""}; ${formatCount(response.body.length)} bytes fetched, ${formatCount(textBytes)} bytes of text`,
  );
  if (page.text.trim() === "") lines.push("The page has no readable text.");
  return `${lines.join("\n")}\n\n${page.text}`;
}
