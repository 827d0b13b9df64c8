import { abortReason } from "../../agent/stop-words.ts";
import type { AgentTag } from "../../protocol/index.ts";
import { formatBytes } from "../../protocol/index.ts";
import type { ToolContext } from "../../tools/index.ts";
import { type ChildParent, runChild } from "./child-agent.ts";
import { cutIntoChunks, readTextPrefix } from "./chunks.ts";

/** Most pieces one summarize or reader call sends: a 1 GB file is covered up to here, and says so. */
export const MAX_PIECES = 64;
/** Merge rounds of a summary of summaries; each round shrinks the text by the summaries' ratio. */
const MAX_MERGE_ROUNDS = 4;

/** Bytes of text one request may carry: a share of the window, at the cheap estimate's 3 bytes a token. */
export function pieceBytes(window: number, share: number): number {
  return Math.max(2048, Math.floor(window * share * 3));
}

/**
 * The text to work on: a file (read through the workspace guard) or text given inline, with nex's
 * own secrets replaced: it goes to the model in a child's request, which no outcome scrubber sees.
 */
export async function loadInput(
  ctx: ToolContext,
  input: { path?: string | undefined; text?: string | undefined },
  limit: number,
): Promise<{ text: string; what: string; note: string } | { error: string }> {
  const loaded = await loadRaw(ctx, input, limit);
  return "text" in loaded && ctx.redact ? { ...loaded, text: ctx.redact(loaded.text) } : loaded;
}

async function loadRaw(
  ctx: ToolContext,
  input: { path?: string | undefined; text?: string | undefined },
  limit: number,
): Promise<{ text: string; what: string; note: string } | { error: string }> {
  if (input.text !== undefined && input.path !== undefined)
    return { error: "Give `path` or `text`, not both." };
  if (input.text !== undefined) {
    const cut = input.text.length > limit;
    return {
      text: cut ? input.text.slice(0, limit) : input.text,
      what: "the text",
      note: cut ? ` Only its first ${formatBytes(limit)} were covered.` : "",
    };
  }
  if (input.path === undefined) return { error: "Give `path` (a file) or `text`." };
  const resolved = await ctx.workspace.resolveForRead(input.path);
  if (!resolved.exists)
    return { error: `${resolved.display} does not exist. Check the path with glob or list_dir.` };
  let read: ReturnType<typeof readTextPrefix>;
  try {
    read = readTextPrefix(resolved.abs, limit);
  } catch (error) {
    return { error: `${resolved.display} could not be read: ${(error as Error).message}.` };
  }
  if (read.type === "binary")
    return {
      error: `${resolved.display} is a binary file (${formatBytes(read.size)}); only text can be read this way.`,
    };
  const lines = read.text.split("\n").length;
  return {
    text: read.text,
    what: resolved.display,
    note: read.complete
      ? ""
      : ` ${resolved.display} is ${formatBytes(read.size)}; only its first ${formatBytes(limit)} (${lines} lines) were covered: the rest was not read. Use grep to find the part that matters, or a narrower task.`,
  };
}

/** One request of a chunked job: a child with no tools and a single turn. */
export async function askOnce(
  parent: ChildParent,
  tag: AgentTag,
  ctx: ToolContext,
  system: string,
  prompt: string,
): Promise<{ ok: true; text: string } | { ok: false; message: string }> {
  const result = await runChild(parent, {
    tag,
    turn: ctx.turn,
    system,
    prompt,
    allowed: null,
    maxTurns: 1,
    signal: ctx.signal,
  });
  const end = result.terminal;
  if (end.type === "done") return { ok: true, text: end.finalText.trim() };
  return {
    ok: false,
    message: end.type === "aborted" ? `did not finish (${end.reason})` : end.message,
  };
}

export function progress(parent: ChildParent, tag: AgentTag, message: string): void {
  parent.emit({ type: "notice", message, agent: tag });
}

const SUMMARY_SYSTEM =
  "You summarise text for a coding agent. Follow the instruction; keep names, numbers, paths and errors exact; be concise; answer with the summary only.";

/**
 * Summarises `text`: pieces cut to the window, each summarised, the summaries merged (again in
 * pieces while they do not fit one request). Stops at the first failed request: no retry storm.
 */
export async function summarizeText(
  parent: ChildParent,
  tag: AgentTag,
  ctx: ToolContext,
  text: string,
  instruction: string,
): Promise<
  { ok: true; text: string; requests: number } | { ok: false; message: string; partial: string[] }
> {
  const size = pieceBytes(parent.window(), 0.45);
  let pieces = cutIntoChunks(text, size);
  let requests = 0;
  for (let round = 0; ; round++) {
    const summaries: string[] = [];
    for (const [index, piece] of pieces.entries()) {
      if (ctx.signal.aborted)
        return { ok: false, message: abortReason(ctx.signal), partial: summaries };
      progress(
        parent,
        tag,
        `summarize: ${round === 0 ? "part" : `merge ${round}, part`} ${index + 1} of ${pieces.length}`,
      );
      const framing =
        round === 0
          ? pieces.length > 1
            ? `This is part ${index + 1} of ${pieces.length} of a longer text.`
            : "This is the whole text."
          : `These are summaries of consecutive parts of one text (group ${index + 1} of ${pieces.length}); merge them into one.`;
      const answer = await askOnce(
        parent,
        tag,
        ctx,
        SUMMARY_SYSTEM,
        `Instruction: ${instruction}\n\n${framing}\n\n<text>\n${piece}\n</text>`,
      );
      requests++;
      if (!answer.ok)
        return {
          ok: false,
          message: `part ${index + 1} of ${pieces.length}: ${answer.message}`,
          partial: summaries,
        };
      summaries.push(answer.text);
    }
    if (summaries.length === 1) return { ok: true, text: summaries[0] ?? "", requests };
    const joined = summaries.map((summary, i) => `[Part ${i + 1}]\n${summary}`).join("\n\n");
    const next = cutIntoChunks(joined, size);
    if (round + 1 >= MAX_MERGE_ROUNDS || next.length >= pieces.length) {
      // Summaries that do not shrink any more are returned as they are rather than looped on.
      return { ok: true, text: joined, requests };
    }
    pieces = next;
  }
}
