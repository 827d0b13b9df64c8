import { stat } from "node:fs/promises";
import * as v from "valibot";
import type { ToolOutcome } from "../../protocol/index.ts";
import { formatCount } from "../../protocol/index.ts";
import { defineTool, existingPath, failure, NON_BLANK, type Tool } from "../tool.ts";
import { fileListing } from "./machinery.ts";

/** Most paths a glob result shows. */
export const GLOB_MAX_FILES = 200;

const parameters = v.strictObject({
  pattern: v.pipe(v.string(), v.minLength(1), v.description("E.g. `*.ts` or `src/**/*.test.ts`.")),
  path: v.optional(
    v.pipe(
      v.string(),
      v.minLength(1),
      v.regex(NON_BLANK),
      v.description("Directory to search (default: the workspace root)."),
    ),
  ),
});

/** The `glob` tool: file names matching a pattern, respecting .gitignore, capped. */
export function globTool(): Tool {
  return defineTool({
    name: "glob",
    description:
      "Find files by glob: without `/` it matches names at any depth, with `/` paths under `path`. " +
      `Lists what git lists (else what .gitignore keeps) except node_modules. At most ${GLOB_MAX_FILES} paths, sorted; says how many more.`,
    parameters,
    mutates: false,
    target: (args) => args.path ?? ".",
    async execute(args, ctx): Promise<ToolOutcome> {
      const { globMatches } = await fileListing();
      const dir = await existingPath(
        ctx,
        args.path ?? ".",
        "Use list_dir to find the right directory.",
      );
      if (!(await stat(dir.abs)).isDirectory())
        return failure(
          "invalid_arguments",
          `${dir.display} is a file; glob looks under a directory. Give its directory as \`path\`, or read the file with read_file.`,
        );
      const dirRel = dir.abs === ctx.workspace.root ? null : ctx.workspace.display(dir.abs);
      const listed = await ctx.search.listFiles(dir.abs, ctx.signal);
      const files = listed.files
        .map((file) => file.path)
        .filter((path) => globMatches(args.pattern, path, dirRel));
      const unlisted = listed.unsearched;
      // What could not be listed is said, so "no files" is never an unread directory.
      const note =
        unlisted.length === 0
          ? ""
          : ` Could not look at ${formatCount(unlisted.length)} ${unlisted.length === 1 ? "path" : "paths"}: ${unlisted
              .slice(0, 10)
              .map((u) => `${u.path} (${u.reason})`)
              .join(", ")}${unlisted.length > 10 ? ", …" : ""}; use bash to look at them.`;
      if (files.length === 0) {
        return {
          isError: false,
          content: `No files match ${args.pattern} in ${dir.display}.${note}`,
          details: { type: "list", count: 0, truncated: false },
        };
      }
      const shown = files.slice(0, GLOB_MAX_FILES);
      const truncated = files.length > shown.length;
      const header = truncated
        ? `Showing ${formatCount(shown.length)} of ${formatCount(files.length)} files matching ${args.pattern}; narrow the pattern or path to see the rest.`
        : `${formatCount(files.length)} ${files.length === 1 ? "file matches" : "files match"} ${args.pattern}.`;
      return {
        isError: false,
        content: `${header}${note}\n${shown.join("\n")}`,
        details: { type: "list", count: files.length, truncated },
      };
    },
  });
}
