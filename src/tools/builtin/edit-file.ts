import * as v from "valibot";
import type { ToolOutcome } from "../../protocol/index.ts";
import { formatBytes, formatCount, formatLines } from "../../protocol/index.ts";
import type { planEdit } from "../files/index.ts";
import { defineTool, failure, NON_BLANK, type Tool } from "../tool.ts";
import { fileSafety, fileWriter } from "./machinery.ts";

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
      "Text to replace, with its whitespace, without read_file's line-number prefixes.",
    ),
  ),
  new_string: v.pipe(
    v.string(),
    v.description("Text to put in its place; an empty string deletes `old_string`."),
  ),
  replace_all: v.optional(v.pipe(v.boolean(), v.description("Replace every occurrence."))),
});

/** Why an edit's plan found no single place to change, in words the model can act on. */
function planFailure(
  plan: Exclude<ReturnType<typeof planEdit>, { type: "match" }>,
  display: string,
): ToolOutcome {
  if (plan.type === "none") {
    const nearest = plan.nearest
      ? `\nThe nearest text in the file (lines ${plan.nearest.from}-${plan.nearest.to}):\n${plan.nearest.text}\n` +
        "Correct old_string to match it exactly and send the edit again."
      : " Read the file again and copy the text exactly (leave out the line-number prefixes).";
    return failure(
      "no_match",
      `old_string was not found in ${display}, not even ignoring line endings, trailing whitespace or indentation; nothing was changed.${nearest}`,
    );
  }
  if (plan.type === "inconsistent") {
    return failure(
      "no_match",
      `old_string was not found exactly in ${display}; ${plan.reason}, so nothing was changed. The file's lines beside old_string's (· is a space, → a tab):\n${plan.sideBySide}\n` +
        "Copy the file's lines exactly into old_string, with their indentation, and write new_string with the same indentation.",
    );
  }
  const lines = plan.lines;
  const how = plan.level === "exact" ? "" : ` (ignoring ${plan.level})`;
  return failure(
    "ambiguous_match",
    `old_string occurs ${lines.length} times in ${display}${how} (lines ${lines.slice(0, 10).join(", ")}${lines.length > 10 ? ", …" : ""}); nothing was changed. ` +
      "Include more surrounding text to make it unique, or set replace_all to change every occurrence.",
  );
}

/** The `edit_file` tool: exact string replacement, read-before-edit, atomic and verified, with a diff. */
export function editFileTool(): Tool {
  return defineTool({
    name: "edit_file",
    description:
      "Replace text in a file read this session (re-read it if it changed). `old_string` must occur once (else set `replace_all`); add lines around it to make it unique. " +
      "Copy it exactly: failing that, other line endings, trailing spaces, then indentation are tolerated (new_string re-indented alike, or refused). " +
      "Placeholders such as `// ... existing code ...` are refused.",
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
      // The machinery loads at the first edit: a run that edits nothing never loads it.
      const [files, writer] = await Promise.all([fileSafety(), fileWriter()]);
      const target = await ctx.workspace.resolve(args.path);
      const existing = target.exists
        ? await files.readState(target.abs, target.display, ctx.signal)
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
      files.checkReplaceable(existing, target.display, "Nothing was changed.");
      if ((await ctx.editor?.unsaved(target.abs, existing.bytes)) != null)
        return (await import("./editor-buffers.ts")).unsavedChanges(
          target.display,
          "Nothing was changed.",
        );
      files.checkReplace({
        ledger: ctx.ledger,
        abs: target.abs,
        display: target.display,
        existing,
        requireComplete: false,
        nothing: "Nothing was changed.",
      });
      const text = existing.bytes.toString("utf8");
      let newString = args.new_string;
      // Inserted line breaks take the file's style, so an edit never leaves a bare LF in a CRLF file.
      const ending = files.dominantLineEnding(text);
      if (ending !== null && newString.includes("\n"))
        newString = files.withLineEnding(newString, ending);
      const plan = files.planEdit(text, args.old_string, newString, args.replace_all === true);
      if (plan.type !== "match") return planFailure(plan, target.display);
      const oldString = args.old_string;
      const placeholders = files.findPlaceholders(newString, oldString);
      if (placeholders.length > 0) {
        return failure(
          "placeholder",
          files
            .placeholderMessage(target.display, placeholders)
            .replace("Nothing was written.", "Nothing was changed."),
        );
      }
      const updated = files.applyReplacements(text, plan.replacements);
      const bytes = Buffer.from(updated, "utf8");
      const known = ctx.ledger.get(target.abs)?.complete ?? false;
      const facts = await writer.commitChange(ctx, {
        target,
        existing,
        content: { type: "bytes", bytes },
        complete: known,
      });
      const diff = await files.shortDiff(target.display, text, updated);
      const count = plan.replacements.length;
      const tolerance =
        plan.level === "exact" || plan.level === "line endings"
          ? ""
          : ` (old_string matched only when ignoring ${plan.level}${plan.reindented ? `; new_string was re-indented the same way: ${plan.reindented}` : ""})`;
      return {
        isError: false,
        content:
          `Edited ${target.display}: ${count} ${count === 1 ? "replacement" : "replacements"}${tolerance}; now ${formatBytes(facts.bytes)}, ` +
          `${formatLines(facts.lines)}, sha256 ${files.shortHash(facts.hash)}${writer.confirmation(facts)}\n${diff}`,
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
