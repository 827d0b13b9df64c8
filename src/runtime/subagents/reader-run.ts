// reader: a child that reads a large file in window-sized parts with the small tool set it needs
// (next_chunk, write_notes, read_notes, finish), in rounds of a few turns: each round is a fresh
// conversation holding only the task, the notes so far and one part, so the window never fills.
// The place and the notes are kept beside the session after every step (reader-notes.ts): a reader
// interrupted mid-way, asked again for the same file and task, goes on from its last notes.
import * as v from "valibot";
import type { ToolHost, ToolOutcome } from "../../protocol/index.ts";
import { formatBytes } from "../../protocol/index.ts";
import { defineTool, dispatch, type Tool, type ToolContext } from "../../tools/index.ts";
import { runChild } from "./child-agent.ts";
import { loadInput, MAX_PIECES, pieceBytes, progress } from "./chunked-reading.ts";
import { cutIntoChunks } from "./chunks.ts";
import { openReading, type ReaderStore, textDigest } from "./reader-notes.ts";
import type { Subagents } from "./subagent-context.ts";

const ROUND_TURNS = 4;
/** Rounds in a row without a tool call before the reader gives up on the model. */
const IDLE_ROUNDS = 2;
/** Rounds at the end with no `finish` before the notes are returned as they are. */
const END_ROUNDS = 2;

const SYSTEM =
  "You read a long file part by part for a coding agent. Each round you see the task and your notes so far. Call next_chunk for the next part, then write_notes with what in it matters for the task (exact names, line numbers, short quotes), then end your turn: the next part comes in a new round, and only your notes carry over. When you have enough, or every part is read, call finish with your answer to the task.";

/** The reader's run: the answer with its notes, or why it stopped and how to go on. */
export async function runReader(
  subagents: Subagents,
  args: { path: string; task: string },
  ctx: ToolContext,
): Promise<ToolOutcome> {
  const parent = subagents.session();
  const size = pieceBytes(parent.window(), 0.3);
  const input = await loadInput(ctx, { path: args.path }, MAX_PIECES * size);
  if ("error" in input) return { isError: true, code: "invalid_arguments", content: input.error };
  const store = openReading(subagents.readerNotesDir(), {
    version: 1,
    what: input.what,
    digest: textDigest(input.text),
    task: args.task.trim(),
    chunkBytes: size,
    next: 0,
    unnoted: 0,
    finished: false,
    result: null,
  });
  const { state } = store;
  const parts = cutIntoChunks(input.text, state.chunkBytes);
  const ranges = lineRanges(parts);
  if (state.finished && state.result !== null)
    return done(
      store,
      input.what,
      parts.length,
      "the same file, unchanged, was read for the same task earlier in this session",
    );
  const tag = subagents.tag("reader", ctx);
  const notesCap = pieceBytes(parent.window(), 0.15);
  const round = { taken: false, noted: false };
  const host = readerHost(
    readerTools(store, parts, ranges, notesCap, round),
    ctx,
    state.chunkBytes + 1024,
  );
  const resumedAt = store.resumed && state.next > 0 ? state.next : null;
  let endRounds = 0;
  // Rounds in a row in which the child used none of its tools: a model that will not read stops here.
  let idle = 0;
  for (let rounds = 0; rounds < parts.length + END_ROUNDS + 2 && !state.finished; rounds++) {
    if (ctx.signal.aborted) break;
    const atEnd = state.next >= parts.length;
    if (atEnd && ++endRounds > END_ROUNDS) break;
    round.taken = false;
    round.noted = false;
    progress(
      parent,
      tag,
      `reader: ${input.what} part ${Math.min(state.next + 1, parts.length)} of ${parts.length}${atEnd ? " (all read)" : ` (${ranges[state.next]})`}`,
    );
    const result = await runChild(parent, {
      tag,
      turn: ctx.turn,
      system: SYSTEM,
      prompt: roundPrompt(args.task, input.what, store, parts.length),
      allowed: () => true,
      host,
      maxTurns: ROUND_TURNS,
      signal: ctx.signal,
    });
    if (round.taken && !round.noted && !state.finished) passOver(store, ranges);
    idle = round.taken || round.noted || state.finished ? 0 : idle + 1;
    if (idle >= IDLE_ROUNDS && !state.finished)
      return stopped(
        store,
        input.what,
        parts.length,
        `the model used none of the reader's tools in ${idle} rounds in a row`,
      );
    const end = result.terminal;
    if (end.type === "error" && end.code !== "turn_limit" && end.code !== "repeated_failure")
      return stopped(store, input.what, parts.length, `the endpoint failed: ${end.message}`);
  }
  if (ctx.signal.aborted) return stopped(store, input.what, parts.length, "it was interrupted");
  if (!state.finished)
    return {
      isError: false,
      content: `${store.notes.trim() || "(no notes were written)"}\n\n[The reader did not call finish; these are its notes from ${state.next} of ${parts.length} part(s) of ${input.what}.${input.note}]`,
    };
  const note =
    resumedAt !== null
      ? `it went on from part ${resumedAt + 1}, where an interrupted reading had left its notes`
      : store.stale
        ? "the file changed since an earlier reading for this task, so it was read again from its start"
        : null;
  return done(store, input.what, parts.length, note, input.note);
}

/** A part taken twice without notes is passed over, and the notes say so: no endless rounds. */
function passOver(store: ReaderStore, ranges: string[]): void {
  store.state.unnoted++;
  if (store.state.unnoted >= 2) {
    store.notes += `${store.notes ? "\n" : ""}(part ${store.state.next + 1}, ${ranges[store.state.next]}: no notes were written)`;
    store.state.next++;
    store.state.unnoted = 0;
  }
  store.save();
}

function roundPrompt(task: string, what: string, store: ReaderStore, count: number): string {
  const next = store.state.next;
  const where =
    next >= count
      ? `Every one of the ${count} part(s) has been read. Call finish with your answer to the task, from your notes.`
      : `${what} is in ${count} part(s); the next is part ${next + 1}. Call next_chunk, then write_notes, then end your turn; or call finish if your notes already answer the task.`;
  return `Task: ${task}\n\n${where}\n\nYour notes so far:\n<notes>\n${store.notes.trim() || "(none yet)"}\n</notes>`;
}

function readerTools(
  store: ReaderStore,
  parts: string[],
  ranges: string[],
  notesCap: number,
  round: { taken: boolean; noted: boolean },
): Tool[] {
  const { state } = store;
  return [
    defineTool({
      name: "next_chunk",
      description: "The next part of the file (one per round).",
      parameters: v.strictObject({}),
      mutates: false,
      async execute() {
        if (state.next >= parts.length)
          return {
            isError: false,
            content: "EOF: every part has been read. Call finish with your answer.",
          };
        if (round.taken)
          return {
            isError: true,
            code: "invalid_arguments",
            content: `You already have part ${state.next + 1} this round: write your notes for it with write_notes, then end your turn; the next part comes in the next round.`,
          };
        round.taken = true;
        return {
          isError: false,
          content: `Part ${state.next + 1} of ${parts.length} (${ranges[state.next]}):\n${parts[state.next]}`,
        };
      },
    }),
    defineTool({
      name: "write_notes",
      description: "Add to your notes (or replace them with mode replace). Only notes carry over.",
      parameters: v.strictObject({
        content: v.pipe(v.string(), v.regex(/\S/)),
        mode: v.optional(v.picklist(["append", "replace"])),
      }),
      mutates: false,
      async execute(args) {
        const notes =
          args.mode === "replace"
            ? args.content.trim()
            : `${store.notes.trimEnd()}${store.notes.trim() ? "\n" : ""}${args.content.trim()}`;
        const bytes = Buffer.byteLength(notes);
        if (bytes > notesCap)
          return {
            isError: true,
            code: "too_large",
            content: `Your notes would be ${formatBytes(bytes)}, more than the ${formatBytes(notesCap)} they may take. Condense them (keep what the task needs) and write them whole with mode "replace".`,
          };
        store.notes = notes;
        if (round.taken && !round.noted) {
          round.noted = true;
          state.next++;
          state.unnoted = 0;
        }
        store.save();
        return { isError: false, content: `Notes saved (${formatBytes(bytes)}).` };
      },
    }),
    defineTool({
      name: "read_notes",
      description: "Your notes so far.",
      parameters: v.strictObject({}),
      mutates: false,
      execute: async () => ({ isError: false, content: store.notes.trim() || "(no notes yet)" }),
    }),
    defineTool({
      name: "finish",
      description: "End the reading with your answer to the task.",
      parameters: v.strictObject({ result: v.pipe(v.string(), v.regex(/\S/)) }),
      mutates: false,
      async execute(args) {
        state.finished = true;
        state.result = args.result.trim();
        store.save();
        return { isError: false, content: "Finished: end your turn." };
      },
    }),
  ];
}

/**
 * The reader's tools as a host: validated by the one dispatcher, no permission to ask. A part is
 * the one large thing in a round's conversation: a result may be as large as a part, not cut to the
 * session's share of a result (which would hand the reader a stub it has no tool to page).
 */
function readerHost(tools: Tool[], ctx: ToolContext, partCap: number): ToolHost {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const limits = { ...ctx.limits, outputCap: Math.max(ctx.limits.outputCap, partCap) };
  const context = { ...ctx, limits };
  return {
    specs: () =>
      tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        parameters: tool.jsonSchema,
      })),
    permission: async () => ({ type: "allow" }),
    rememberApproval: () => {},
    readOnly: (name) => name === "read_notes",
    parallel: () => false,
    execute: (call, signal) =>
      dispatch(call.name, call.args, { tools: byName, context, signal, turn: ctx.turn }),
  };
}

function lineRanges(parts: string[]): string[] {
  let line = 1;
  return parts.map((part) => {
    const lines = part.split("\n").length - (part.endsWith("\n") ? 1 : 0);
    const range = `lines ${line}-${line + Math.max(0, lines - 1)}`;
    line += lines;
    return range;
  });
}

function done(
  store: ReaderStore,
  what: string,
  count: number,
  how: string | null,
  cut = "",
): ToolOutcome {
  const notes = store.notes.trim();
  return {
    isError: false,
    content: `${store.state.result ?? ""}${notes ? `\n\nNotes:\n${notes}` : ""}\n\n[Read ${Math.min(store.state.next, count)} of ${count} part(s) of ${what}${how ? `; ${how}` : ""}.${cut}]`,
  };
}

function stopped(store: ReaderStore, what: string, count: number, why: string): ToolOutcome {
  const notes = store.notes.trim() || "(none yet)";
  return {
    isError: true,
    code: why === "it was interrupted" ? "aborted" : "failed",
    content: `reader of ${what} stopped at part ${store.state.next + 1} of ${count}: ${why}. Its notes are kept: call reader again with the same path and task to go on from there.\nNotes up to there:\n${notes}`,
  };
}
