import * as v from "valibot";
import type { ToolOutcome } from "../../protocol/index.ts";
import { formatBytes, formatCount, formatLines } from "../../protocol/index.ts";
import { defineTool, failure, NON_BLANK, type Tool } from "../tool.ts";
import { fileSafety } from "./machinery.ts";

/** Files larger than this are not read at all (search them or read a slice with bash). */
export const MAX_READ_FILE_BYTES = 20 * 2 ** 20;
const MAX_LINES = 2000;
const MAX_LINE_CHARS = 2000;

const parameters = v.strictObject({
  path: v.pipe(
    v.string(),
    v.minLength(1),
    v.regex(NON_BLANK),
    v.description("File to read, relative to the workspace root or absolute."),
  ),
  offset: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.description("First line to show (1-based). Omit to start at line 1."),
    ),
  ),
  limit: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.maxValue(MAX_LINES),
      v.description(`How many lines to show (at most ${MAX_LINES}).`),
    ),
  ),
});

/** The start of `line`: at most `chars` UTF-16 units and `bytes` UTF-8 bytes, whole code points only. */
function lineStart(line: string, chars: number, bytes: number): string {
  if (line.length <= chars && line.length * 3 <= bytes) return line;
  let end = 0;
  let size = 0;
  for (const ch of line) {
    const width = ch.length === 2 ? 4 : Buffer.byteLength(ch);
    if (end + ch.length > chars || size + width > bytes) break;
    end += ch.length;
    size += width;
  }
  return line.slice(0, end);
}

/**
 * Lines `from` to `wanted` numbered, as many as fit `budget` bytes (at least one); `to` is the last
 * one shown and `firstCut` the first one cut short (0: none).
 */
function numberedLines(
  lines: string[],
  from: number,
  wanted: number,
  budget: number,
): { out: string[]; to: number; firstCut: number } {
  const out: string[] = [];
  let used = 0;
  let to = from - 1;
  let firstCut = 0;
  for (let n = from; n <= wanted; n += 1) {
    let line = (lines[n - 1] ?? "").replace(/\r$/, "");
    // A line is cut to its first characters and to what fits one result, never inside a character.
    const kept = lineStart(line, MAX_LINE_CHARS, budget - 200);
    if (kept.length < line.length) {
      line = `${kept}… [line cut: ${formatCount(line.length)} characters; read it with bash]`;
      if (firstCut === 0) firstCut = n;
    }
    const numbered = `${String(n).padStart(6)}\t${line}`;
    const size = Buffer.byteLength(numbered) + 1;
    if (used + size > budget && out.length > 0) break;
    out.push(numbered);
    used += size;
    to = n;
  }
  return { out, to, firstCut };
}

/** The `read_file` tool: line-numbered text, in slices for large files, recorded in the read ledger. */
export function readFileTool(): Tool {
  return defineTool({
    name: "read_file",
    description:
      "Read a text file or an image. Lines come numbered `     N<TAB>text` (not part of the file), " +
      `up to ${MAX_LINES} per call, lines over ${MAX_LINE_CHARS} characters cut and marked; the result gives the next offset.`,
    parameters,
    mutates: false,
    target: (args) => args.path,
    async execute(args, ctx): Promise<ToolOutcome> {
      const { imageHeader, isText, readState, statRegular } = await fileSafety();
      const target = await ctx.workspace.resolveForRead(args.path);
      if (!target.exists) {
        return failure(
          "not_found",
          `${target.display} does not exist. Use glob or list_dir to find the right path.`,
        );
      }
      const tooLarge = (size: number): ToolOutcome =>
        failure(
          "too_large",
          `${target.display} is ${formatBytes(size)}, over the ${formatBytes(MAX_READ_FILE_BYTES)} read_file limit. ` +
            `Search it with grep, or show a slice with bash (e.g. \`sed -n '1,200p' ${target.display}\`).`,
        );
      // The size from stat decides before anything is read: a huge file is never loaded just to be refused.
      const info = statRegular(target.abs, target.display);
      if (info && info.size > MAX_READ_FILE_BYTES) return tooLarge(info.size);
      const onDisk = await readState(target.abs, target.display, ctx.signal);
      if (!onDisk)
        return failure(
          "not_found",
          `${target.display} does not exist. Use glob or list_dir to find the right path.`,
        );
      if (onDisk.size > MAX_READ_FILE_BYTES) return tooLarge(onDisk.size);
      // Known by its first bytes: a text file named `.png` is read as text.
      const image = imageHeader(onDisk.bytes);
      if (image) {
        const base = {
          path: target.abs,
          hash: onDisk.hash,
          mtimeMs: onDisk.mtimeMs,
          size: onDisk.size,
        };
        ctx.ledger.recordRead(base, { from: 1, to: 0, total: 0 });
        const { readImageOutcome } = await import("./read-image.ts");
        return readImageOutcome({
          display: target.display,
          bytes: onDisk.bytes,
          header: image,
          acceptsImages: ctx.limits.acceptsImages?.() ?? false,
        });
      }
      if (!isText(onDisk.bytes)) {
        return failure(
          "binary",
          `${target.display} is a binary file (${formatBytes(onDisk.size)}); read_file shows text only. ` +
            `Inspect it with bash (e.g. \`file ${target.display}\` or \`xxd ${target.display} | head\`).`,
        );
      }
      // What the user sees in the editor, unsaved changes included, is what the model reads.
      const unsaved = await ctx.editor?.unsaved(target.abs, onDisk.bytes);
      const file =
        unsaved == null
          ? onDisk
          : (await import("./editor-buffers.ts")).asInEditor(onDisk, unsaved);
      const text = file.bytes.toString("utf8");
      const crlf = text.includes("\r\n");
      const lines = text.length === 0 ? [] : text.replace(/\n$/, "").split("\n");
      const total = lines.length;
      const base = { path: target.abs, hash: file.hash, mtimeMs: file.mtimeMs, size: file.size };
      if (total === 0) {
        ctx.ledger.recordRead(base, { from: 1, to: 0, total: 0 });
        return {
          isError: false,
          content: `${target.display} is empty (0 bytes).`,
          details: { type: "read", path: target.display, lines: 0, totalLines: 0, complete: true },
        };
      }
      const from = args.offset ?? 1;
      if (from > total) {
        return failure(
          "invalid_arguments",
          `offset ${from} is past the end of ${target.display} (${formatCount(total)} lines). Use an offset from 1 to ${total}.`,
        );
      }
      const budget = Math.max(1024, ctx.limits.outputCap - 400);
      const wanted = Math.min(total, from - 1 + (args.limit ?? MAX_LINES));
      const { out, to, firstCut } = numberedLines(lines, from, wanted, budget);
      const coveredTo = firstCut > 0 ? firstCut - 1 : to;
      const record = ctx.ledger.recordRead(
        base,
        coveredTo >= from ? { from, to: coveredTo, total } : { from: 1, to: 0, total },
      );
      const whole = from === 1 && to === total && firstCut === 0;
      const edited = unsaved == null ? "" : ", as the editor shows it with unsaved changes";
      const header = `${target.display} (${formatLines(total)}, ${formatBytes(file.size)}${crlf ? ", CRLF line endings" : ""}${edited})`;
      const footer = whole
        ? ""
        : to < total
          ? `\n(Showing lines ${from}-${to} of ${formatCount(total)}. Continue with offset ${to + 1}.)`
          : `\n(Showing lines ${from}-${to} of ${formatCount(total)}${firstCut > 0 ? "; some long lines were cut" : ""}.)`;
      return {
        isError: false,
        content: `${header}:\n${out.join("\n")}${footer}`,
        details: {
          type: "read",
          path: target.display,
          lines: to - from + 1,
          totalLines: total,
          complete: record.complete,
        },
      };
    },
  });
}
