// "Always allow this in this project": a precise rule (a command and its subcommand, `npm test`, or
// an MCP tool's full name) saved in the user's config file under the project's own entry,
// `projects["/path/to/project"].commands.allow`. It lives in the user's file, not in the project:
// a cloned repository cannot plant rules that run commands unasked. The file is rewritten whole
// with the file tools' atomic write (its mode and owner kept, the folder synced), every other setting
// as it was, the file's own indentation; a config that is a link (dotfiles kept in a repository) is
// written where it leads, the link left in place.
import { mkdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { atomicWrite } from "../../tools/index.ts";

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The indentation the file uses (two spaces when it has none to copy). */
function indentOf(text: string): string | number {
  const match = /\n([ \t]+)"/.exec(text);
  return match?.[1] ?? 2;
}

/**
 * Adds `rules` to the project's allow list in the config at `configPath` (created when missing).
 * Returns the rules that were new; throws with a reason when the file cannot be read as JSON.
 */
export async function saveProjectRules(
  configPath: string,
  workspace: string,
  rules: readonly string[],
): Promise<string[]> {
  let text = "";
  let mode = 0o600;
  let target = configPath;
  try {
    target = realpathSync(configPath);
    text = readFileSync(target, "utf8");
    mode = statSync(target).mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  let config: unknown = {};
  if (text.trim() !== "") {
    try {
      config = JSON.parse(text);
    } catch (error) {
      throw new Error(
        `${configPath} is not valid JSON (${(error as Error).message}); nothing was written`,
      );
    }
  }
  if (!isObject(config))
    throw new Error(`${configPath} does not hold a JSON object; nothing was written`);
  const projects = isObject(config.projects) ? config.projects : {};
  const project = isObject(projects[workspace]) ? (projects[workspace] as Json) : {};
  const commands = isObject(project.commands) ? project.commands : {};
  const allow = Array.isArray(commands.allow) ? (commands.allow as unknown[]) : [];
  const added = rules.filter((rule) => !allow.includes(rule));
  if (added.length === 0) return [];
  const next = {
    ...config,
    projects: {
      ...projects,
      [workspace]: { ...project, commands: { ...commands, allow: [...allow, ...added] } },
    },
  };
  const body = `${JSON.stringify(next, null, indentOf(text))}${text === "" || text.endsWith("\n") ? "\n" : ""}`;
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  await atomicWrite(target, Buffer.from(body, "utf8"), { mode });
  return added;
}

/** The line said after an "always allow in this project" answer. */
export async function saveApprovalLine(
  configPath: string,
  workspace: string,
  found: { rules: string[] } | { refused: string },
): Promise<string> {
  if ("refused" in found)
    return `Allowed for this session only, not saved for the project: ${found.refused}.`;
  try {
    const added = await saveProjectRules(configPath, workspace, found.rules);
    const rules = found.rules.map((rule) => `"${rule}"`).join(", ");
    if (added.length === 0) return `${rules} is already allowed for this project in ${configPath}.`;
    return `Saved ${rules} to ${configPath} (projects → "${workspace}" → commands.allow): such commands run here without asking from now on, in this and later sessions. To stop it, delete the rule there.`;
  } catch (error) {
    return `Allowed for this session only: the rule could not be saved (${(error as Error).message}).`;
  }
}
