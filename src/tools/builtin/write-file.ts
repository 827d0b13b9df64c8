import { stat } from "node:fs/promises";
import * as v from "valibot";
import type { ToolOutcome } from "../../protocol/index.ts";
import { formatBytes, formatLines } from "../../protocol/index.ts";
import type { FileState, PartsStore, ResolvedPath } from "../files/index.ts";
import { defineTool, failure, NON_BLANK, type Tool, type ToolContext } from "../tool.ts";
import type { CommittedChange, NewContent } from "./file-writer.ts";
import { fileSafety, fileWriter } from "./machinery.ts";

const parameters = v.strictObject({
  path: v.pipe(
    v.string(),
    v.minLength(1),
    v.regex(NON_BLANK),
    v.description("File to create or replace, relative to the workspace root or absolute."),
  ),
  content: v.pipe(
    v.string(),
    v.description(
      "The complete new content of the file (or of this part). An empty string creates or empties the file.",
    ),
  ),
  part: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.description("For large files: which part this is, 1-based. Give with `parts`."),
    ),
  ),
  parts: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.description("For large files: how many parts in total. Give with `part`."),
    ),
  ),
});

const DESCRIPTION =
  "Create a file or replace a whole file with `content`. To change part of an existing file, prefer edit_file. " +
  "Replacing an existing file requires that you read it completely with read_file in this session and that it has not changed since. " +
  "Always send the complete text: omission placeholders such as `// ... rest of the code unchanged` are refused. " +
  "Your reply has an output-token limit (often 4-8k tokens with local models) and a write cut off by it fails, " +
  "so write a file of more than about 300 lines (~12 KB) in parts: part: 1, parts: N with the first chunk, then part 2, ... part N, " +
  "one call each, in order; the whole file is written when the last part arrives. " +
  "An empty string is valid content (an empty file).";

async function summarize(
  args: { path: string; content: string; part?: number; parts?: number },
  ctx: ToolContext,
): Promise<string> {
  const size = formatBytes(Buffer.byteLength(args.content));
  const target = await ctx.workspace.resolve(args.path).catch(() => null);
  const display = target?.display ?? args.path;
  if (args.part !== undefined && args.parts !== undefined && args.parts > 1) {
    return `write_file ${display} (part ${args.part} of ${args.parts}, ${size})`;
  }
  const existing = target?.exists ? await stat(target.abs).catch(() => null) : null;
  return `write_file ${display} (${size}, ${existing ? `overwrites ${formatBytes(existing.size)}` : "new file"})`;
}

async function written(
  target: ResolvedPath,
  existing: FileState | null,
  facts: CommittedChange,
  newText: string,
  from: string,
): Promise<ToolOutcome> {
  const [{ shortDiff, shortHash }, { confirmation }] = await Promise.all([
    fileSafety(),
    fileWriter(),
  ]);
  const previousBytes = existing?.size ?? 0;
  const what = existing
    ? `Overwrote ${target.display} (was ${formatBytes(previousBytes)})${from}: now`
    : `Created ${target.display}${from}:`;
  return {
    isError: false,
    content: `${what} ${formatBytes(facts.bytes)}, ${formatLines(facts.lines)}, sha256 ${shortHash(facts.hash)}${confirmation(facts)}`,
    details: {
      type: "write",
      path: target.display,
      created: existing === null,
      bytes: facts.bytes,
      lines: facts.lines,
      hash: facts.hash,
      previousBytes,
      diff: await shortDiff(
        target.display,
        existing ? existing.bytes.toString("utf8") : "",
        newText,
      ),
    },
  };
}

async function writeWhole(
  ctx: ToolContext,
  target: ResolvedPath,
  sent: string,
  sentContent: NewContent,
  from: string,
): Promise<ToolOutcome> {
  // The machinery loads at the first write: a run that writes nothing never loads it.
  const [
    {
      checkReplace,
      checkReplaceable,
      conformToFile,
      describeKept,
      findPlaceholders,
      placeholderMessage,
      readState,
    },
    { commitChange },
  ] = await Promise.all([fileSafety(), fileWriter()]);
  const existing = await readState(target.abs, target.display, ctx.signal);
  const oldText = existing ? existing.bytes.toString("utf8") : "";
  const discarded = sentContent.type === "staged" ? " The staged parts were discarded." : "";
  if (existing) checkReplaceable(existing, target.display, `Nothing was written.${discarded}`);
  const { text, kept } = conformToFile(existing ? oldText : null, sent);
  const content: NewContent =
    text === sent ? sentContent : { type: "bytes", bytes: Buffer.from(text, "utf8") };
  const placeholders = findPlaceholders(sent, oldText);
  if (placeholders.length > 0) {
    return failure(
      "placeholder",
      `${placeholderMessage(target.display, placeholders)}${discarded}`,
    );
  }
  if (existing && (await ctx.editor?.unsaved(target.abs, existing.bytes)) != null)
    return (await import("./editor-buffers.ts")).unsavedChanges(
      target.display,
      `Nothing was written.${discarded}`,
    );
  checkReplace({
    ledger: ctx.ledger,
    abs: target.abs,
    display: target.display,
    existing,
    newText: text,
    requireComplete: true,
    nothing: `Nothing was written.${discarded}`,
  });
  const facts = await commitChange(ctx, { target, existing, content, complete: true });
  return written(target, existing, facts, text, `${from}${describeKept(kept)}`);
}

async function writePart(
  ctx: ToolContext,
  store: PartsStore,
  target: ResolvedPath,
  args: { content: string; part: number; parts: number },
): Promise<ToolOutcome> {
  const { checkReplace, checkReplaceable, findPlaceholders, placeholderMessage, readState } =
    await fileSafety();
  const bytes = Buffer.from(args.content, "utf8");
  const existing = await readState(target.abs, target.display, ctx.signal);
  const oldText = existing ? existing.bytes.toString("utf8") : "";
  const placeholders = findPlaceholders(args.content, oldText);
  if (placeholders.length > 0) {
    return failure(
      "placeholder",
      `${placeholderMessage(target.display, placeholders)} Part ${args.part} was not staged.`,
    );
  }
  if (args.part === 1) {
    if (existing) checkReplaceable(existing, target.display, "Nothing was staged.");
    checkReplace({
      ledger: ctx.ledger,
      abs: target.abs,
      display: target.display,
      existing,
      requireComplete: true,
      nothing: "Nothing was staged.",
    });
    const { discarded } = await store.start(target.abs, target.display, args.parts, bytes);
    const restarted =
      discarded > 0 ? ` (restarted: the ${discarded} part(s) staged before were discarded)` : "";
    return staged(target, 1, args.parts, bytes.length, bytes.length, restarted);
  }
  const state = await store.append(target.abs, args.part, args.parts, bytes);
  if (args.part < args.parts)
    return staged(target, args.part, args.parts, bytes.length, state.bytes, "");
  try {
    const whole = await store.read(target.abs);
    const text = whole.toString("utf8");
    return await writeWhole(
      ctx,
      target,
      text,
      { type: "staged", path: state.path, bytes: whole, check: () => store.check(target.abs) },
      ` from ${args.parts} parts`,
    );
  } finally {
    await store.discard(target.abs);
  }
}

function staged(
  target: ResolvedPath,
  part: number,
  parts: number,
  bytes: number,
  total: number,
  note: string,
): ToolOutcome {
  return {
    isError: false,
    content:
      `Part ${part} of ${parts} staged (${formatBytes(bytes)}; ${formatBytes(total)} staged so far)${note}; ` +
      `nothing written to ${target.display} yet. Send part ${part + 1} of ${parts} next.`,
    details: { type: "part_staged", path: target.display, part, parts, bytes },
  };
}

/** The `write_file` tool: atomic, verified, read-before-write, optionally in parts. */
export function writeFileTool(store: () => PartsStore): Tool {
  return defineTool({
    name: "write_file",
    description: DESCRIPTION,
    parameters,
    mutates: "edit",
    words: {
      content: {
        missing:
          "Missing required argument `content`: the call had no content at all (an explicit empty string would be accepted). " +
          "This is usually an argument dropped under output pressure. Nothing was written. Re-emit the call with the full content, " +
          "or, for a large file, write it in parts (part: 1, parts: N, then part 2 ...).",
      },
    },
    summarize,
    target: (args) => args.path,
    async execute(args, ctx): Promise<ToolOutcome> {
      const { part, parts } = args;
      if ((part === undefined) !== (parts === undefined)) {
        return failure(
          "invalid_arguments",
          `\`part\` and \`parts\` go together: got only \`${part === undefined ? "parts" : "part"}\`. Nothing was written. ` +
            "Re-send with both (e.g. part: 1, parts: 3), or with neither for a single write.",
        );
      }
      if (part !== undefined && parts !== undefined && part > parts) {
        return failure(
          "invalid_arguments",
          `part ${part} is more than parts ${parts}. Nothing was written. Number parts from 1 to ${parts}.`,
        );
      }
      const target = await ctx.workspace.resolve(args.path);
      if (part === undefined || parts === undefined || parts === 1) {
        const bytes = Buffer.from(args.content, "utf8");
        return writeWhole(ctx, target, args.content, { type: "bytes", bytes }, "");
      }
      return writePart(ctx, store(), target, { content: args.content, part, parts });
    },
  });
}
