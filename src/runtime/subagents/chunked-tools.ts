import * as v from "valibot";
import type { ToolOutcome } from "../../protocol/index.ts";
import { defineTool, type Tool } from "../../tools/index.ts";
import type { Subagents } from "./subagent-context.ts";

// The chunked reading machinery loads with the first call: most sessions never summarise.
const reading = async () => ({
  ...(await import("./chunked-reading.ts")),
  ...(await import("./chunks.ts")),
});

const source = {
  path: v.optional(v.string()),
  text: v.optional(v.string()),
};

// Rarely used: deferred, so on small windows their schemas are sent only once the model loads them.
/** `summarize`: a text larger than the window, reduced piece by piece by the session's model. */
export function summarizeTool(subagents: Subagents): Tool {
  return defineTool({
    name: "summarize",
    deferred: true,
    brief: "summarise a large file",
    description: "Summarise a large file (or text) in window-sized pieces.",
    parameters: v.strictObject({
      ...source,
      instruction: v.optional(v.string()),
    }),
    mutates: false,
    summarize: async (args) => `summarize ${args.path ?? "text"}`,
    async execute(args, ctx): Promise<ToolOutcome> {
      const parent = subagents.session();
      const { loadInput, MAX_PIECES, pieceBytes, summarizeText } = await reading();
      const input = await loadInput(ctx, args, MAX_PIECES * pieceBytes(parent.window(), 0.45));
      if ("error" in input)
        return { isError: true, code: "invalid_arguments", content: input.error };
      const tag = subagents.tag("summarize", ctx);
      const instruction = args.instruction?.trim() || "Summarise the text.";
      const result = await summarizeText(parent, tag, ctx, input.text, instruction);
      if (!result.ok) {
        const kept =
          result.partial.length > 0
            ? `\nSummaries of the parts done:\n${result.partial.join("\n\n")}`
            : "";
        return {
          isError: true,
          code: ctx.signal.aborted ? "aborted" : "failed",
          content: `summarize of ${input.what} stopped at ${result.message}.${kept}`,
        };
      }
      return {
        isError: false,
        content: `${result.text}\n\n[Summary of ${input.what} in ${result.requests} request(s).${input.note}]`,
      };
    },
  });
}

/** `reader`: a child that pulls a large file part by part with its own small tools, keeping notes beside the session. */
export function readerTool(subagents: Subagents): Tool {
  return defineTool({
    name: "reader",
    deferred: true,
    brief: "read a large file for a task",
    description:
      "Read a large file in parts for a task, keeping notes (resumable); returns findings.",
    parameters: v.strictObject({
      path: v.pipe(v.string(), v.regex(/\S/)),
      task: v.pipe(v.string(), v.regex(/\S/)),
    }),
    mutates: false,
    summarize: async (args) => `reader ${args.path}`,
    async execute(args, ctx): Promise<ToolOutcome> {
      // Loaded with the first call: most sessions never read this way.
      const { runReader } = await import("./reader-run.ts");
      return runReader(subagents, args, ctx);
    },
  });
}

/** `chunk_map`: one instruction over each window-sized chunk of a large file or stored result. */
export function chunkMapTool(subagents: Subagents): Tool {
  return defineTool({
    name: "chunk_map",
    deferred: true,
    brief: "one instruction per chunk",
    description:
      "Run one instruction over each chunk of a large file or @results/ result; results stored and merged.",
    parameters: v.strictObject({
      path: v.pipe(v.string(), v.regex(/\S/)),
      instruction: v.pipe(v.string(), v.regex(/\S/)),
      timeout_seconds: v.optional(v.pipe(v.number(), v.minValue(5), v.maxValue(600))),
    }),
    mutates: false,
    summarize: async (args) => `chunk_map ${args.path}: ${args.instruction.slice(0, 60)}`,
    async execute(args, ctx): Promise<ToolOutcome> {
      // Loaded with the first call: most sessions never map chunks.
      const { runChunkMap } = await import("./chunk-map.ts");
      return runChunkMap(subagents, args, ctx);
    },
  });
}
