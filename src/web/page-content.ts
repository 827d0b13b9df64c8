// A fetched body as text the model can read: HTML as readable markdown (Readability over linkedom,
// then turndown), PDF as its text (unpdf), JSON and plain text as they are. Anything else is refused
// with its type. The libraries load on first use only: a session that fetches nothing never pays.
import { formatCount } from "../protocol/index.ts";
import { redactUrl } from "./redact-url.ts";
import type { WebResponse } from "./web-client.ts";

/** A page as text. */
export interface PageText {
  title: string | null;
  /** What it was read as: "html", "pdf", "json", "text". */
  kind: "html" | "pdf" | "json" | "text";
  mediaType: string;
  text: string;
}

/** A body nex does not turn into text; the message names its type. */
export class UnreadableType extends Error {
  override readonly name = "UnreadableType";
}

/** The media type of a response: the header's, or what its first bytes say when there is none. */
export function mediaTypeOf(response: Pick<WebResponse, "contentType" | "body">): string {
  const declared = response.contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (declared && declared !== "application/octet-stream") return declared;
  const head = response.body.subarray(0, 512).toString("latin1").trimStart();
  if (head.startsWith("%PDF-")) return "application/pdf";
  if (/^<(!doctype html|html|head|body)/i.test(head)) return "text/html";
  if (/^[[{]/.test(head)) return "application/json";
  return declared || "application/octet-stream";
}

/** The body as text, by its type. Throws UnreadableType for images, archives and the like. */
export async function pageText(response: WebResponse): Promise<PageText> {
  const mediaType = mediaTypeOf(response);
  if (mediaType === "text/html" || mediaType === "application/xhtml+xml") {
    return {
      ...(await htmlToMarkdown(decodeText(response), response.url)),
      kind: "html",
      mediaType,
    };
  }
  if (mediaType === "application/pdf")
    return { ...(await pdfToText(response.body)), kind: "pdf", mediaType };
  if (mediaType === "application/json" || mediaType.endsWith("+json")) {
    const text = decodeText(response);
    try {
      return {
        title: null,
        kind: "json",
        mediaType,
        text: JSON.stringify(JSON.parse(text), null, 2),
      };
    } catch {
      return { title: null, kind: "json", mediaType, text };
    }
  }
  if (
    mediaType.startsWith("text/") ||
    mediaType.endsWith("+xml") ||
    mediaType === "application/xml" ||
    mediaType === "application/javascript" ||
    mediaType === "application/x-yaml" ||
    mediaType === "application/yaml"
  ) {
    return { title: null, kind: "text", mediaType, text: decodeText(response) };
  }
  throw new UnreadableType(
    `${redactUrl(response.url)} is ${mediaType} (${formatCount(response.body.length)} bytes), which web_fetch does not read: it reads HTML, PDF, JSON and text.`,
  );
}

function decodeText(response: WebResponse): string {
  // The header's charset, else an HTML page's own <meta charset> near its start, else UTF-8.
  const head = response.body.subarray(0, 2048).toString("latin1");
  const charset =
    /charset\s*=\s*"?([\w.:-]+)/i.exec(response.contentType)?.[1] ??
    /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1] ??
    "utf-8";
  try {
    return new TextDecoder(charset).decode(response.body);
  } catch {
    return new TextDecoder("utf-8").decode(response.body);
  }
}

async function htmlToMarkdown(
  html: string,
  url: string,
): Promise<{ title: string | null; text: string }> {
  const [{ parseHTML }, { Readability }, turndown] = await Promise.all([
    import("linkedom"),
    import("@mozilla/readability"),
    import("turndown"),
  ]);
  const { document } = parseHTML(html);
  // Relative links are made absolute against the page's own address (or its <base>).
  const base = document.querySelector("base[href]")?.getAttribute("href");
  const baseUrl = URL.parse(base ?? "", url)?.href ?? url;
  for (const [tag, attribute] of [
    ["a", "href"],
    ["img", "src"],
  ] as const) {
    for (const node of document.querySelectorAll(`${tag}[${attribute}]`)) {
      const absolute = URL.parse(node.getAttribute(attribute) ?? "", baseUrl);
      if (absolute) node.setAttribute(attribute, absolute.href);
    }
  }
  const fallbackTitle = document.querySelector("title")?.textContent?.trim() || null;
  const bodyHtml = document.body?.innerHTML ?? html;
  let article: { title?: string | null; content?: string | null } | null = null;
  try {
    article = new Readability(document as unknown as Document, { charThreshold: 100 }).parse();
  } catch {
    article = null;
  }
  const Turndown = turndown.default;
  const converter = new Turndown({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
  });
  converter.remove(["script", "style", "noscript", "iframe", "form"] as never);
  const markdown = converter.turndown(article?.content || bodyHtml).trim();
  return { title: article?.title?.trim() || fallbackTitle, text: markdown };
}

async function pdfToText(body: Buffer): Promise<{ title: string | null; text: string }> {
  const { extractText, getDocumentProxy, getMeta } = await import("unpdf");
  const pdf = await getDocumentProxy(new Uint8Array(body));
  const { totalPages, text } = await extractText(pdf, { mergePages: false });
  let title: string | null = null;
  try {
    const meta = await getMeta(pdf);
    const info = meta.info as { Title?: unknown } | undefined;
    title = typeof info?.Title === "string" && info.Title.trim() ? info.Title.trim() : null;
  } catch {
    title = null;
  }
  const pages = (text as string[]).map(
    (page, i) => `--- page ${i + 1} of ${totalPages} ---\n${page.trim()}`,
  );
  return { title, text: pages.join("\n\n") };
}
