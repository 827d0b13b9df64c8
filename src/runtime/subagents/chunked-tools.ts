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

const READER_SYSTEM =
  "You read a long file piece by piece for a coding agent, keeping notes for a task. Each time you get your notes so far and the next piece: answer with your updated notes only (what matters for the task, with exact names, line numbers and quotes). The notes are all you keep.";

/** `reader`: a child that pulls a large file in window-sized pieces, keeping notes, and reports findings. */
export function readerTool(subagents: Subagents): Tool {
  return defineTool({
    name: "reader",
    deferred: true,
    description: "Read a large file in pieces for a task, keeping notes; returns findings.",
    parameters: v.strictObject({
      path: v.pipe(v.string(), v.regex(/\S/)),
      task: v.pipe(v.string(), v.regex(/\S/)),
    }),
    mutates: false,
    summarize: async (args) => `reader ${args.path}`,
    async execute(args, ctx): Promise<ToolOutcome> {
      const parent = subagents.session();
      const { askOnce, cutIntoChunks, loadInput, MAX_PIECES, pieceBytes, progress } =
        await reading();
      // Notes ride along with every piece: pieces take less of the window than summarize's.
      const size = pieceBytes(parent.window(), 0.35);
      const input = await loadInput(ctx, { path: args.path }, MAX_PIECES * size);
      if ("error" in input)
        return { isError: true, code: "invalid_arguments", content: input.error };
      const tag = subagents.tag("reader", ctx);
      const pieces = cutIntoChunks(input.text, size);
      let notes = "(none yet)";
      let line = 1;
      for (const [index, piece] of pieces.entries()) {
        const lines = piece.split("\n").length - (piece.endsWith("\n") ? 1 : 0);
        const range = `lines ${line}-${line + Math.max(0, lines - 1)}`;
        progress(
          parent,
          tag,
          `reader: ${input.what} part ${index + 1} of ${pieces.length} (${range})`,
        );
        const answer = await askOnce(
          parent,
          tag,
          ctx,
          READER_SYSTEM,
          `Task: ${args.task}\n\nYour notes so far:\n${notes}\n\nPart ${index + 1} of ${pieces.length} of ${input.what} (${range}):\n<piece>\n${piece}\n</piece>\n\nAnswer with your updated notes.`,
        );
        if (!answer.ok) {
          return {
            isError: true,
            code: ctx.signal.aborted ? "aborted" : "failed",
            content: `reader of ${input.what} stopped at part ${index + 1} of ${pieces.length} (${range}): ${answer.message}.\nNotes up to there:\n${notes}`,
          };
        }
        notes = answer.text || notes;
        line += lines;
      }
      return {
        isError: false,
        content: `${notes}\n\n[Findings from reading ${input.what} in ${pieces.length} part(s).${input.note}]`,
      };
    },
  });
}

/** `chunk_map`: one instruction over each window-sized chunk of a large file or stored result. */
export function chunkMapTool(subagents: Subagents): Tool {
  return defineTool({
    name: "chunk_map",
    deferred: true,
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
