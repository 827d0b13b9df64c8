import * as v from "valibot";
import type { ToolOutcome } from "../protocol/index.ts";
import { formatCount } from "../protocol/index.ts";
import { defineTool, existingPath, NON_BLANK, type Tool } from "./tool.ts";

/** Most matching lines a grep result shows. */
// Every match is kept (a long list is stored whole and paged like any large result), up to a bound
// that keeps memory sane on a pattern that matches every line of a huge tree.
export const GREP_MAX_MATCHES = 100_000;
const MAX_LINE_CHARS = 300;

const parameters = v.strictObject({
  pattern: v.pipe(
    v.string(),
    v.minLength(1),
    v.description("Regular expression to search for in file contents."),
  ),
  path: v.optional(
    v.pipe(
      v.string(),
      v.minLength(1),
      v.regex(NON_BLANK),
      v.description("File or directory to search (default: the workspace root)."),
    ),
  ),
  glob: v.optional(
    v.pipe(
      v.string(),
      v.minLength(1),
      v.description("Only files matching this glob, e.g. `*.ts` (any depth) or `src/**/*.ts`."),
    ),
  ),
  ignore_case: v.optional(v.pipe(v.boolean(), v.description("Match case-insensitively."))),
});

/** The `grep` tool: regex search over non-ignored files, capped, saying what was cut. */
export function grepTool(): Tool {
  return defineTool({
    name: "grep",
    description:
      "Search file contents with a regular expression. Skips .git, node_modules, binary files and what .gitignore excludes. " +
      "Returns `path:line: text` lines; a long list is stored whole and can be paged with read_file.",
    parameters,
    mutates: false,
    target: (args) => args.path ?? ".",
    async execute(args, ctx): Promise<ToolOutcome> {
      const dir = await existingPath(
        ctx,
        args.path ?? ".",
        "Use list_dir or glob to find the right directory.",
      );
      const result = await ctx.search.grep({
        pattern: args.pattern,
        dir: dir.abs,
        ignoreCase: args.ignore_case === true,
        keep: GREP_MAX_MATCHES,
        signal: ctx.signal,
        ...(args.glob ? { glob: args.glob } : {}),
      });
      const where = `${formatCount(result.files)} ${result.files === 1 ? "file" : "files"}`;
      if (result.total === 0) {
        return {
          isError: false,
          content: `No matches for /${args.pattern}/ in ${dir.display}${args.glob ? ` (files matching ${args.glob})` : ""}.`,
          details: { type: "list", count: 0, truncated: false },
        };
      }
      const lines = result.matches.map((m) => {
        const text =
          m.text.length > MAX_LINE_CHARS
            ? `${m.text.slice(0, MAX_LINE_CHARS)}… [line cut]`
            : m.text;
        return `${ctx.workspace.display(m.path.startsWith("/") ? m.path : `${ctx.workspace.root}/${m.path}`)}:${m.line}: ${text}`;
      });
      const truncated = result.total > result.matches.length;
      const header = truncated
        ? `Showing ${formatCount(result.matches.length)} of ${formatCount(result.total)} matches in ${where}; narrow the pattern or path to see the rest.`
        : `${formatCount(result.total)} ${result.total === 1 ? "match" : "matches"} in ${where}.`;
      return {
        isError: false,
        content: `${header}\n${lines.join("\n")}`,
        details: { type: "list", count: result.total, truncated },
      };
    },
  });
}
