import { join } from "node:path";
import { parseFrontMatter, textField } from "./front-matter.ts";
import { type ExtensionDir, listDir, MAX_ENTRIES, readExtensionFile } from "./locations.ts";

/** A slash command the user wrote as a markdown file (Claude Code's `.claude/commands` format). */
export interface CustomCommand {
  /** `review`, or `frontend:component` for `frontend/component.md`. */
  name: string;
  description: string | null;
  argumentHint: string | null;
  /** The model the file asks for (front matter `model`), shown, not switched to silently. */
  model: string | null;
  path: string;
  source: ExtensionDir;
}

/** Most bytes of a command file. */
export const COMMAND_FILE_LIMIT = 64 * 1024;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Names the chat keeps for itself: no file can take them over. */
const RESERVED = new Set([
  "undo",
  "compact",
  "model",
  "sessions",
  "resume",
  "clear",
  "help",
  "reasoning",
  "exit",
  "quit",
  "mode",
  "skill",
  "skills",
  "status",
  "export",
  "rewind",
  "fork",
  "bg",
  "mcp",
]);
/** Built-in commands a user's own file may replace, but never a repository's. */
const USER_REPLACEABLE = new Set(["init"]);

/** Finds the command files in `dirs` (the first folder wins a name), with what was left out and why. */
export async function findCommands(
  dirs: ExtensionDir[],
  workspace: string,
): Promise<{ commands: CustomCommand[]; problems: string[] }> {
  const commands: CustomCommand[] = [];
  const problems: string[] = [];
  const seen = new Map<string, ExtensionDir["scope"]>();
  for (const source of dirs) {
    const files: { name: string; path: string }[] = [];
    for (const entry of listDir(source.path)) {
      if (entry.dir) {
        for (const inner of listDir(join(source.path, entry.name)))
          if (!inner.dir && inner.name.endsWith(".md"))
            files.push({
              name: `${entry.name}:${inner.name.slice(0, -3)}`,
              path: join(source.path, entry.name, inner.name),
            });
      } else if (entry.name.endsWith(".md"))
        files.push({ name: entry.name.slice(0, -3), path: join(source.path, entry.name) });
    }
    if (files.length > MAX_ENTRIES)
      problems.push(
        `${source.label}: only the first ${MAX_ENTRIES} of ${files.length} commands were read.`,
      );
    for (const file of files.slice(0, MAX_ENTRIES)) {
      const where = `${source.label}/${file.name.replace(":", "/")}.md`;
      if (!file.name.split(":").every((part) => NAME.test(part))) {
        problems.push(
          `${where} was left out: its name is not a plain name (letters, digits, . _ -).`,
        );
        continue;
      }
      if (
        RESERVED.has(file.name) ||
        (source.scope === "project" && USER_REPLACEABLE.has(file.name))
      ) {
        problems.push(
          `${where} was left out: /${file.name} is one of nex's own commands, which a repository's file cannot replace.`,
        );
        continue;
      }
      if (seen.has(file.name)) {
        if (source.scope === "project" && seen.get(file.name) === "user")
          problems.push(
            `${where} was left out: /${file.name} is your own command, which a repository's file cannot replace.`,
          );
        continue;
      }
      const read = await readExtensionFile(source, file.path, COMMAND_FILE_LIMIT, workspace);
      if (read.type === "missing") continue;
      if (read.type === "refused") {
        problems.push(`${where} was not read: ${read.reason}.`);
        continue;
      }
      const parsed = await parseFrontMatter(read.text);
      if (!parsed.ok) {
        problems.push(
          `${where} was left out: ${parsed.error}. Fix the file; /${file.name} is unavailable until then.`,
        );
        continue;
      }
      seen.set(file.name, source.scope);
      commands.push({
        name: file.name,
        description: textField(parsed.data, "description") ?? firstLine(parsed.body),
        argumentHint: textField(parsed.data, "argument-hint"),
        model: textField(parsed.data, "model"),
        path: file.path,
        source,
      });
    }
  }
  return { commands, problems };
}

function firstLine(body: string): string | null {
  const line = body
    .split("\n")
    .map((l) => l.replace(/^#+\s*/, "").trim())
    .find((l) => l !== "");
  if (!line) return null;
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}

/** `/name rest` typed at the prompt, when `name` is one of `commands`; else null. */
export function matchCommand(
  text: string,
  commands: readonly { name: string }[],
): { name: string; args: string } | null {
  const match = /^\/([A-Za-z0-9][A-Za-z0-9:._-]*)(?:[ \t]+([\s\S]*))?$/.exec(text.trim());
  if (!match) return null;
  const name = match[1] ?? "";
  if (!commands.some((command) => command.name === name)) return null;
  return { name, args: (match[2] ?? "").trim() };
}

/** Splits arguments as a shell would for `$1`…`$9`: spaces separate, quotes group. */
export function splitArguments(text: string): string[] {
  const out: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (const match of text.matchAll(pattern))
    out.push(
      match[1] !== undefined ? match[1].replace(/\\(.)/g, "$1") : (match[2] ?? match[3] ?? ""),
    );
  return out;
}

/**
 * The command's text with its arguments in place: `$ARGUMENTS` is everything after the name, `$1`…`$9`
 * the words. A file that uses neither gets the arguments appended, so nothing typed is dropped.
 */
export function substituteArguments(body: string, args: string): string {
  const words = splitArguments(args);
  let used = false;
  const text = body.replace(/\$ARGUMENTS\b|\$([1-9])(?![0-9])/g, (_match, index?: string) => {
    used = true;
    return index === undefined ? args : (words[Number(index) - 1] ?? "");
  });
  return used || args === "" ? text : `${text.trimEnd()}\n\nArguments: ${args}`;
}
