import * as v from "valibot";
import type { ToolOutcome } from "../protocol/index.ts";
import { shortDiff } from "./diff-text.ts";
import { formatBytes, formatCount, formatLines, readState, shortHash } from "./file-content.ts";
import { checkReplaceable } from "./file-guard.ts";
import { commitChange, confirmation } from "./file-writer.ts";
import { dominantLineEnding, withLineEnding } from "./line-endings.ts";
import { findPlaceholders, placeholderMessage } from "./placeholders.ts";
import { defineTool, failure, NON_BLANK, type Tool } from "./tool.ts";
import { checkReplace } from "./write-guard.ts";

const parameters = v.strictObject({
  path: v.pipe(
    v.string(),
    v.minLength(1),
    v.regex(NON_BLANK),
    v.description("File to edit, relative to the workspace root or absolute."),
  ),
  old_string: v.pipe(
    v.string(),
    v.minLength(1),
    v.description(
      "Exact text to replace, including whitespace and indentation, without the line-number prefix read_file shows.",
    ),
  ),
  new_string: v.pipe(
    v.string(),
    v.description("Text to put in its place; an empty string deletes `old_string`."),
  ),
  replace_all: v.optional(
    v.pipe(
      v.boolean(),
      v.description("Replace every occurrence instead of requiring exactly one."),
    ),
  ),
});

function occurrences(text: string, needle: string): number[] {
  const at: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length))
    at.push(i);
  return at;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line += 1;
  return line;
}

/** The `edit_file` tool: exact string replacement, read-before-edit, atomic and verified, with a diff. */
export function editFileTool(): Tool {
  return defineTool({
    name: "edit_file",
    description:
      "Replace exact text in an existing file. `old_string` must match the file exactly (whitespace included) and occur exactly once, " +
      "unless `replace_all` is true; include a few surrounding lines to make it unique. Read the file with read_file first in this session; " +
      "if it changed since, read it again. Send the real replacement text: omission placeholders such as `// ... existing code ...` are refused.",
    parameters,
    mutates: "edit",
    words: {
      old_string: {
        empty:
          "`old_string` must not be empty: it is the exact text to replace. To create a file use write_file; to insert text, include the neighbouring text in old_string and new_string.",
      },
    },
    target: (args) => args.path,
    async summarize(args, ctx) {
      const target = await ctx.workspace.resolve(args.path).catch(() => null);
      const lines = formatCount(args.new_string.split("\n").length);
      return `edit_file ${target?.display ?? args.path} (replace ${formatCount(args.old_string.split("\n").length)} lines with ${lines}${args.replace_all ? ", every occurrence" : ""})`;
    },
    async execute(args, ctx): Promise<ToolOutcome> {
      const target = await ctx.workspace.resolve(args.path);
      const existing = target.exists
        ? await readState(target.abs, target.display, ctx.signal)
        : null;
      if (!existing) {
        return failure(
          "not_found",
          `${target.display} does not exist; nothing was changed. To create a file, use write_file.`,
        );
      }
      if (args.old_string === args.new_string) {
        return failure(
          "invalid_arguments",
          "old_string and new_string are identical; nothing was changed. Send the text you want instead.",
        );
      }
      checkReplaceable(existing, target.display, "Nothing was changed.");
      checkReplace({
        ledger: ctx.ledger,
        abs: target.abs,
        display: target.display,
        existing,
        requireComplete: false,
        nothing: "Nothing was changed.",
      });
      const text = existing.bytes.toString("utf8");
      let oldString = args.old_string;
      let newString = args.new_string;
      let found = occurrences(text, oldString);
      // The model sees lines without their CR: in a CRLF file, LF in old_string matches CRLF (and the
      // other way round in an LF file).
      const ending = dominantLineEnding(text);
      if (found.length === 0 && oldString.includes("\n")) {
        const other = withLineEnding(oldString, oldString.includes("\r\n") ? "\n" : "\r\n");
        found = occurrences(text, other);
        if (found.length > 0) oldString = other;
      }
      // Inserted line breaks take the file's style, so an edit never leaves a bare LF in a CRLF file.
      if (ending !== null && newString.includes("\n"))
        newString = withLineEnding(newString, ending);
      if (found.length === 0) {
        return failure(
          "no_match",
          `old_string was not found in ${target.display}; nothing was changed. Read the file again and copy the text exactly ` +
            "(whitespace, indentation and line breaks must match; leave out the line-number prefixes).",
        );
      }
      if (found.length > 1 && args.replace_all !== true) {
        const lines = found.slice(0, 10).map((index) => lineOf(text, index));
        return failure(
          "ambiguous_match",
          `old_string occurs ${found.length} times in ${target.display} (lines ${lines.join(", ")}${found.length > 10 ? ", …" : ""}); nothing was changed. ` +
            "Include more surrounding text to make it unique, or set replace_all to change every occurrence.",
        );
      }
      const placeholders = findPlaceholders(newString, oldString);
      if (placeholders.length > 0) {
        return failure(
          "placeholder",
          placeholderMessage(target.display, placeholders).replace(
            "Nothing was written.",
            "Nothing was changed.",
          ),
        );
      }
      const updated =
        args.replace_all === true
          ? text.split(oldString).join(newString)
          : text.replace(oldString, () => newString);
      const bytes = Buffer.from(updated, "utf8");
      const known = ctx.ledger.get(target.abs)?.complete ?? false;
      const facts = await commitChange(ctx, {
        target,
        existing,
        content: { type: "bytes", bytes },
        complete: known,
      });
      const diff = await shortDiff(target.display, text, updated);
      const count = args.replace_all === true ? found.length : 1;
      return {
        isError: false,
        content:
          `Edited ${target.display}: ${count} ${count === 1 ? "replacement" : "replacements"}; now ${formatBytes(facts.bytes)}, ` +
          `${formatLines(facts.lines)}, sha256 ${shortHash(facts.hash)}${confirmation(facts)}\n${diff}`,
        details: {
          type: "edit",
          path: target.display,
          bytes: facts.bytes,
          lines: facts.lines,
          hash: facts.hash,
          replacements: count,
          diff,
        },
      };
    },
  });
}
