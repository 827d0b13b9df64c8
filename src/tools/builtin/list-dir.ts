import { lstat, readdir, readlink } from "node:fs/promises";
import { join } from "node:path";
import * as v from "valibot";
import type { ToolOutcome } from "../../protocol/index.ts";
import { formatBytes, formatCount } from "../../protocol/index.ts";
import { defineTool, existingPath, failure, NON_BLANK, type Tool } from "../tool.ts";
import { fileListing } from "./machinery.ts";

/** Most entries a listing shows. */
export const LIST_MAX_ENTRIES = 500;

const parameters = v.strictObject({
  path: v.optional(
    v.pipe(
      v.string(),
      v.minLength(1),
      v.regex(NON_BLANK),
      v.description("Directory to list (default: the workspace root)."),
    ),
  ),
});

/** The `list_dir` tool: one directory's entries with type and size, capped. */
export function listDirTool(): Tool {
  return defineTool({
    name: "list_dir",
    description: `List one directory: subdirectories end with \`/\`, files show their size, symlinks their target. At most ${LIST_MAX_ENTRIES} entries.`,
    parameters,
    mutates: false,
    target: (args) => args.path ?? ".",
    async execute(args, ctx): Promise<ToolOutcome> {
      const { nameText } = await fileListing();
      const dir = await existingPath(
        ctx,
        args.path ?? ".",
        "List its parent directory to find the right name.",
      );
      const info = await lstat(dir.abs);
      if (!info.isDirectory())
        return failure(
          "failed",
          `${dir.display} is a file, not a directory. Use read_file to read it.`,
        );
      const raw = await readdir(dir.abs, { encoding: "buffer" });
      const names = raw.map((bytes) => bytes.toString("utf8")).sort();
      const unnamable = new Set(raw.filter((bytes) => nameText(bytes) === null).map(String));
      const shown = names.slice(0, LIST_MAX_ENTRIES);
      const lines: string[] = [];
      for (const name of shown) {
        ctx.signal.throwIfAborted();
        // Every entry counted in the header is shown, even one no tool call can name.
        if (unnamable.has(name)) {
          lines.push(`${name}  (name is not valid UTF-8; use bash to handle it)`);
          continue;
        }
        const entry = await lstat(join(dir.abs, name)).catch((error: unknown) => error as Error);
        if (entry instanceof Error) {
          lines.push(`${name}  (could not be read: ${entry.message})`);
          continue;
        }
        if (entry.isDirectory()) lines.push(`${name}/`);
        else if (entry.isSymbolicLink())
          lines.push(`${name} -> ${await readlink(join(dir.abs, name)).catch(() => "?")}`);
        else if (entry.isFile()) lines.push(`${name}  (${formatBytes(entry.size)})`);
        else lines.push(`${name}  (special file)`);
      }
      const truncated = names.length > shown.length;
      const header =
        names.length === 0
          ? `${dir.display} is empty.`
          : truncated
            ? `${dir.display}: showing ${formatCount(shown.length)} of ${formatCount(names.length)} entries; use glob to find specific files.`
            : `${dir.display}: ${formatCount(names.length)} ${names.length === 1 ? "entry" : "entries"}.`;
      return {
        isError: false,
        content: lines.length > 0 ? `${header}\n${lines.join("\n")}` : header,
        details: { type: "list", count: names.length, truncated },
      };
    },
  });
}
