// web_fetch, web_search and research as tools: the web client (src/web/) adapted to the one tool
// contract. The client and its libraries load when a web tool first runs, so start-up never pays.

import * as v from "valibot";
import { formatCount } from "../../protocol/index.ts";
import { defineTool, type Tool, type ToolContext, ToolFailure } from "../../tools/index.ts";
import { answered, scholarTools } from "./scholar-tools.ts";
import { searchBackends } from "./web-config.ts";
import type { Loaded, WebToolParts } from "./web-tool-parts.ts";

export type { WebToolParts } from "./web-tool-parts.ts";

const NonBlank = v.pipe(v.string(), v.regex(/\S/, "must not be blank"));

/** What the three tools share: the web module loaded on first use, and the page budget. */
interface WebKit {
  parts: WebToolParts;
  load: () => Promise<Loaded>;
  shown: (url: string) => Promise<string>;
  pageBytes: () => number;
}

export function webTools(parts: WebToolParts): Tool[] {
  if (parts.config.web.enabled === false) return [];
  let loaded: Promise<Loaded> | null = null;
  const load = (): Promise<Loaded> => {
    loaded ??= import("../../web/index.ts").then((web) => {
      const { web: settings, proxy } = parts.config;
      const client = web.createWebClient({
        proxy,
        allowPrivateHosts: settings.allowPrivateHosts ?? [],
        ...(settings.maxPageBytes ? { maxBytes: settings.maxPageBytes } : {}),
        ...(settings.timeoutSeconds ? { timeoutMs: settings.timeoutSeconds * 1000 } : {}),
      });
      const search = web.createWebSearch(searchBackends(parts.config, parts.env), client);
      return { web, client, search };
    });
    return loaded;
  };
  // A page's text sent for a summary: half the window at about 3.5 bytes a token, at most 48 KiB.
  const pageBytes = () => Math.max(4_000, Math.min(48_000, Math.floor(parts.window() * 1.75)));
  const shown = (url: string) => load().then(({ web }) => web.redactUrl(url));
  const kit: WebKit = { parts, load, shown, pageBytes };
  return [
    webFetchTool(kit),
    webSearchTool(kit),
    researchTool(kit),
    ...scholarTools({ parts, load, failed, pageBytes }),
  ];
}

/** A web failure as the tool failure the model reads (its code says what kind). */
function failed(error: unknown): never {
  const name = (error as Error)?.name;
  if (
    name === "WebError" ||
    name === "UnreadableType" ||
    name === "SearchUnavailable" ||
    name === "SearchFailure"
  ) {
    const kind = (error as { kind?: string }).kind ?? "";
    const code =
      kind === "private" || kind === "scheme"
        ? "denied"
        : kind === "too_large" || kind === "timeout" || kind === "aborted"
          ? kind
          : name === "UnreadableType"
            ? "binary"
            : "failed";
    throw new ToolFailure(code, (error as Error).message);
  }
  throw error;
}

/** `web_fetch`: one page as text, summarised for `what` when too large. */
function webFetchTool(kit: WebKit): Tool {
  const { load, shown } = kit;
  return defineTool({
    name: "web_fetch",
    deferred: true,
    brief: "fetch a URL",
    description:
      "Fetch an http(s) URL: HTML as markdown of its main content, PDF as text, JSON and text as they are. A large page is stored for read_file; with `what`, it is also summarised for that.",
    parameters: v.object({
      url: v.pipe(NonBlank, v.description("The http or https URL.")),
      what: v.optional(v.pipe(v.string(), v.description("What you need from it."))),
    }),
    mutates: false,
    reach: (args) => args.url,
    summarize: async (args) => `web_fetch ${await shown(args.url)}`,
    async caution(args) {
      const { client } = await load();
      return client.screen(args.url);
    },
    async execute(args, ctx) {
      const { web, client } = await load();
      const url = URL.parse(args.url);
      const approvedHost = ctx.approved && url ? web.hostKey(url) : null;
      const fetched = await web
        .fetchPage(client, args.url, { signal: ctx.signal, approvedHost })
        .catch(failed);
      const content = web.describePage(fetched);
      const details = {
        type: "web" as const,
        url: web.redactUrl(fetched.response.url),
        query: null,
        title: fetched.page.title,
        bytes: Buffer.byteLength(fetched.page.text, "utf8"),
      };
      const what = args.what?.trim();
      if (!what || Buffer.byteLength(content, "utf8") <= ctx.limits.outputCap)
        return { isError: false, content, details };
      return {
        isError: false,
        content: await summarized(kit, content, what, fetched, ctx),
        details,
      };
    },
  });
}

// A page too large for the window, asked with `what`: kept whole for paging, and summarised.
async function summarized(
  { parts, load, pageBytes }: WebKit,
  content: string,
  what: string,
  fetched: import("../../web/index.ts").FetchedPage,
  ctx: ToolContext,
): Promise<string> {
  const { web } = await load();
  const stored = ctx.results.save(content, "web_fetch");
  const header = content.slice(0, content.indexOf("\n\n"));
  const where = `The whole page (${formatCount(stored.bytes)} bytes) is stored as "${stored.name}": read it with read_file (path "${stored.name}", offset, limit) or grep.`;
  try {
    const summary = await parts.summarize(
      {
        question: what,
        title: fetched.page.title ?? "",
        url: web.redactUrl(fetched.response.url),
        text: fetched.page.text.slice(0, pageBytes()),
        maxBytes: Math.max(600, Math.floor(ctx.limits.outputCap / 2)),
      },
      ctx.signal,
    );
    return `${header}\n${where}\n\nSummary for "${what}":\n${summary}`;
  } catch (error) {
    ctx.signal.throwIfAborted();
    return `${header}\n${where}\n\nIt could not be summarised (${(error as Error).message}); page through it instead. Its start:\n${fetched.page.text.slice(0, Math.floor(ctx.limits.outputCap / 2))}`;
  }
}

/** `web_search`: the top results of the configured backends. */
function webSearchTool(kit: WebKit): Tool {
  const { load } = kit;
  return defineTool({
    name: "web_search",
    deferred: true,
    brief: "search the web",
    description:
      "Search the web (DuckDuckGo, Wikipedia and any configured backends): top results with title, URL and snippet.",
    parameters: v.object({
      query: v.pipe(NonBlank, v.description("What to search for.")),
      count: v.optional(
        v.pipe(
          v.number(),
          v.integer(),
          v.minValue(1),
          v.maxValue(20),
          v.description("Results (default 8)."),
        ),
      ),
    }),
    mutates: false,
    reach: (args) => args.query,
    summarize: async (args) => `web_search "${args.query}"`,
    async execute(args, ctx) {
      const { web, search } = await load();
      const answer = await search.search(args.query, args.count ?? 8, ctx.signal).catch(failed);
      const lines = [
        `${answer.hits.length} result${answer.hits.length === 1 ? "" : "s"} for "${args.query}" from ${answer.answered.join(", ")}${answer.cached ? " (cached: this session searched it before)" : ""}:`,
        ...answer.hits.map(
          (hit, i) =>
            `${i + 1}. ${hit.title || "(no title)"}\n   ${web.redactUrl(hit.url)}\n   ${hit.snippet}`,
        ),
      ];
      if (answer.hits.length === 0)
        lines.push("The backends answered, with no results: try other words.");
      if (answer.failed.length > 0) lines.push(`Backends that failed: ${answer.failed.join("; ")}`);
      const content = lines.join("\n");
      return answered(args.query, content);
    },
  });
}

/** `research`: search, read the best pages, a brief with sources. */
function researchTool(kit: WebKit): Tool {
  const { parts, load, pageBytes } = kit;
  return defineTool({
    name: "research",
    deferred: true,
    brief: "answer from web pages",
    description:
      "Research a question on the web: search, read the best pages, return a brief with numbered sources.",
    parameters: v.object({
      question: v.pipe(NonBlank, v.description("The question, in full.")),
    }),
    mutates: false,
    reach: (args) => args.question,
    summarize: async (args) => `research "${args.question}" (searches, then reads up to 3 pages)`,
    async execute(args, ctx) {
      const { web, client, search } = await load();
      const brief = await web
        .research(
          args.question,
          {
            search,
            client,
            summarise: (input, signal) => parts.summarize(input, signal),
            progress: (message) => ctx.progress?.(message),
            budgetBytes: ctx.limits.outputCap,
            pageBytes: pageBytes(),
          },
          ctx.signal,
        )
        .catch(failed);
      return answered(args.question, brief);
    },
  });
}
