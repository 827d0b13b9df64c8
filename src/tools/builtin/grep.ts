import * as v from "valibot";
import type { ToolOutcome } from "../../protocol/index.ts";
import { formatCount } from "../../protocol/index.ts";
import type { GrepResult } from "../search/index.ts";
import { defineTool, existingPath, NON_BLANK, type Tool } from "../tool.ts";

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
      v.description("File or directory (default: the workspace root)."),
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
      "Regex search of file contents (Rust syntax: no lookaround or backreferences). Searches what git lists (else what .gitignore keeps) " +
      "except node_modules, binary files and files over 10 MiB, and names what it could not search: 'No matches' means none. " +
      "Returns `path:line: text`; long lists are stored for read_file.",
    parameters,
    mutates: false,
    target: (args) => args.path ?? ".",
    async execute(args, ctx): Promise<ToolOutcome> {
      const dir = await existingPath(
        ctx,
        args.path ?? ".",
        /[*?[{]/.test(args.path ?? "")
          ? "`path` names one file or directory; put a pattern in `glob` (e.g. path `src`, glob `*.ts`)."
          : "Use list_dir or glob to find the right directory.",
      );
      const result = await ctx.search.grep({
        pattern: args.pattern,
        dir: dir.abs,
        ignoreCase: args.ignore_case === true,
        keep: GREP_MAX_MATCHES,
        signal: ctx.signal,
        ...(args.glob ? { glob: args.glob } : {}),
      });
      // A file named by path shows as it was named: a stored `@results/…` copy keeps that name.
      const shownPath = (path: string): string => {
        const abs = path.startsWith("/") ? path : `${ctx.workspace.root}/${path}`;
        return abs === dir.abs ? dir.display : ctx.workspace.display(abs);
      };
      const notes = searchNotes(result, shownPath);
      const where = `${formatCount(result.files)} ${result.files === 1 ? "file" : "files"}`;
      if (result.total === 0) {
        const scope = `${dir.display}${args.glob ? ` (files matching ${args.glob})` : ""}`;
        const none =
          result.searched === 0
            ? `No file was searched in ${scope}: the ignore rules keep none there${args.glob ? " that the glob matches" : ""}. To search ignored files, use bash (\`grep -rn\`).`
            : `No matches for /${args.pattern}/ in ${scope} (${formatCount(result.searched)} ${result.searched === 1 ? "file" : "files"} searched).`;
        return {
          // A search that could not read what it was pointed at did not find "nothing".
          isError: result.searched === 0 && result.unsearched.length > 0,
          ...(result.searched === 0 && result.unsearched.length > 0
            ? { code: "failed" as const }
            : {}),
          content: `${none}${notes}`,
          details: { type: "list", count: 0, truncated: false },
        };
      }
      const lines = result.matches.map((m) => {
        const text =
          m.text.length > MAX_LINE_CHARS
            ? `${m.text.slice(0, MAX_LINE_CHARS)}… [line cut]`
            : m.text;
        return `${shownPath(m.path)}:${m.line}: ${text}`;
      });
      const truncated = result.total > result.matches.length;
      const header = truncated
        ? `Showing ${formatCount(result.matches.length)} of ${formatCount(result.total)} matches in ${where}; narrow the pattern or path to see the rest.`
        : `${formatCount(result.total)} ${result.total === 1 ? "match" : "matches"} in ${where}.`;
      return {
        isError: false,
        content: `${header}${notes}\n${lines.join("\n")}`,
        details: { type: "list", count: result.total, truncated },
      };
    },
  });
}

/** What the search could not show: files it could not read, binary files that match. */
function searchNotes(result: GrepResult, shown: (path: string) => string): string {
  const list = (items: string[]): string =>
    `${items.slice(0, 10).join(", ")}${items.length > 10 ? `, and ${formatCount(items.length - 10)} more` : ""}`;
  let notes = "";
  if (result.unsearched.length > 0)
    notes += ` Could not search ${formatCount(result.unsearched.length)} ${result.unsearched.length === 1 ? "path" : "paths"}: ${list(
      result.unsearched.map((u) => `${shown(u.path)} (${u.reason})`),
    )}; use bash to look at them.`;
  if (result.binary.length > 0)
    notes += ` ${formatCount(result.binary.length)} binary ${result.binary.length === 1 ? "file also matches" : "files also match"} (lines not shown): ${list(result.binary.map(shown))}.`;
  return notes;
}
