// chunk_map: one large input (a file or a stored result) cut into window-sized chunks at line
// ends, one instruction run over each chunk as its own request (no tools, one turn), under `map`'s
// bounds (a few at a time, at most 200 chunks, no new chunk once the endpoint keeps failing); the
// results stored whole in one file and returned, or merged when they are too large.
import type { ToolOutcome } from "../../protocol/index.ts";
import type { ToolContext } from "../../tools/index.ts";
import { loadInput, pieceBytes } from "./chunked-reading.ts";
import { cutIntoChunks } from "./chunks.ts";
import type { Subagents } from "./subagent-context.ts";
import { MAX_ITEMS, reportPool, runItem, runPool } from "./work-pool.ts";

const SYSTEM =
  "You apply one instruction to one chunk of a larger input for a coding agent. Answer for this chunk only, with exact names, numbers, paths and line numbers; if the chunk has nothing for the instruction, say so in one line.";

export async function runChunkMap(
  subagents: Subagents,
  args: { path: string; instruction: string; timeout_seconds?: number | undefined },
  ctx: ToolContext,
): Promise<ToolOutcome> {
  const parent = subagents.session();
  // The instruction and the answer ride with each chunk: chunks take less than half the window.
  const size = pieceBytes(parent.window(), 0.4);
  const input = await loadInput(ctx, { path: args.path }, MAX_ITEMS * size);
  if ("error" in input) return { isError: true, code: "invalid_arguments", content: input.error };
  const chunks = cutIntoChunks(input.text, size);
  if (chunks.length === 0)
    return { isError: true, code: "invalid_arguments", content: `${input.what} is empty.` };
  const tag = subagents.tag("chunk_map", ctx);
  const headings: string[] = [];
  let line = 1;
  for (const chunk of chunks) {
    const lines = chunk.split("\n").length - (chunk.endsWith("\n") ? 1 : 0);
    headings.push(`${input.what} lines ${line}-${line + Math.max(0, lines - 1)}`);
    line += lines;
  }
  const timeoutSeconds = args.timeout_seconds ?? 180;
  const pool = await runPool(chunks.length, "chunk", ctx.signal, (index) =>
    runItem(
      parent,
      tag,
      `chunk_map: chunk ${index + 1} of ${chunks.length} (${headings[index]})`,
      timeoutSeconds,
      {
        tag: subagents.tag("chunk", ctx),
        turn: ctx.turn,
        system: SYSTEM,
        prompt: `Instruction: ${args.instruction}\n\nChunk ${index + 1} of ${chunks.length}: ${headings[index]}\n<chunk>\n${chunks[index]}\n</chunk>`,
        allowed: null,
        maxTurns: 1,
      },
      ctx.signal,
    ),
  );
  const outcome = await reportPool(
    parent,
    tag,
    ctx,
    { tool: "chunk_map", task: args.instruction, headings, unit: "chunk" },
    pool,
  );
  return input.note ? { ...outcome, content: `${outcome.content}\n${input.note.trim()}` } : outcome;
}
