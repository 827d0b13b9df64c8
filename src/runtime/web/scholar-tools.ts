// arxiv_search and deep_research as tools, over the web tools' one client and search (loaded on
// first use, like theirs). arXiv's requests are spaced three seconds apart (src/web/arxiv.ts).
import * as v from "valibot";
import type { ToolOutcome } from "../../protocol/index.ts";
import { defineTool, type Tool, type ToolContext } from "../../tools/index.ts";
import type { Loaded, WebToolParts } from "./web-tool-parts.ts";

interface ScholarParts {
  parts: WebToolParts;
  load: () => Promise<Loaded>;
  failed: (error: unknown) => never;
  pageBytes: () => number;
}

const NonBlank = v.pipe(v.string(), v.regex(/\S/, "must not be blank"));
const DEEP_DEFAULT_SECONDS = 300;

export function scholarTools(scholar: ScholarParts): Tool[] {
  return [arxivTool(scholar), deepResearchTool(scholar)];
}

function arxivTool({ parts, load, failed }: ScholarParts): Tool {
  return defineTool({
    name: "arxiv_search",
    deferred: true,
    brief: "search arXiv papers",
    description:
      "Search arXiv papers: title, authors, date, category, abstract and links. Plain words, fields (ti:, au:, abs:, cat:) or paper ids.",
    parameters: v.object({
      query: v.pipe(NonBlank, v.maxLength(500), v.description("Words, fields or arXiv ids.")),
      max_results: v.optional(
        v.pipe(
          v.number(),
          v.integer(),
          v.minValue(1),
          v.maxValue(50),
          v.description("Default 10."),
        ),
      ),
      sort: v.optional(v.picklist(["relevance", "submitted", "updated"])),
    }),
    mutates: false,
    reach: (args) => args.query,
    summarize: async (args) => `arxiv_search "${args.query}"`,
    async execute(args, ctx) {
      const { client } = await load();
      const arxiv = await (await load()).web.loadArxiv();
      const found = await arxiv
        .searchArxiv(
          client,
          parts.config.web.arxivUrl ?? arxiv.ARXIV_URL,
          { query: args.query, maxResults: args.max_results ?? 10, sort: args.sort ?? "relevance" },
          ctx.signal,
        )
        .catch(failed);
      const content = arxiv.describePapers(args.query, found);
      return answered(args.query, content);
    },
  });
}

function deepResearchTool({ parts, load, failed, pageBytes }: ScholarParts): Tool {
  return defineTool({
    name: "deep_research",
    deferred: true,
    brief: "multi-part web research",
    description:
      "Research a broad question: split into sub-questions, each researched on the web, one cited answer.",
    parameters: v.object({
      question: v.pipe(NonBlank, v.maxLength(2000), v.description("The question, in full.")),
      timeout_seconds: v.optional(v.pipe(v.number(), v.minValue(30), v.maxValue(600))),
    }),
    mutates: false,
    reach: (args) => args.question,
    summarize: async (args) =>
      `deep_research "${args.question}" (up to 4 sub-questions, 2 pages each, ${args.timeout_seconds ?? DEEP_DEFAULT_SECONDS} s at most)`,
    async execute(args, ctx: ToolContext) {
      const ask = parts.ask;
      if (!ask)
        return {
          isError: true,
          code: "failed",
          content:
            "deep_research needs the session's model, which this run does not offer to tools.",
        };
      const { web, client, search } = await load();
      const { deepResearch } = await web.loadDeepResearch();
      const answer = await deepResearch(
        args.question,
        {
          search,
          client,
          summarise: (input, signal) => parts.summarize(input, signal),
          ask: (system, prompt, signal) => ask(system, prompt, { ...ctx, signal }),
          progress: (message) => ctx.progress?.(message),
          budgetBytes: ctx.limits.outputCap,
          pageBytes: pageBytes(),
          timeoutMs: (args.timeout_seconds ?? DEEP_DEFAULT_SECONDS) * 1000,
        },
        ctx.signal,
      ).catch(failed);
      return answered(args.question, answer);
    },
  });
}

/** A search-like tool's answer: its text, and the query it answers for the UIs. */
export function answered(query: string, content: string): ToolOutcome {
  return {
    isError: false,
    content,
    details: { type: "web", url: null, query, title: null, bytes: Buffer.byteLength(content) },
  };
}
