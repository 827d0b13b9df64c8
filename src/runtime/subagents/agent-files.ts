import { join } from "node:path";
import {
  extensionDirs,
  listDir,
  MAX_ENTRIES,
  parseFrontMatter,
  readExtensionFile,
  textField,
} from "../extensions/index.ts";

/** A subagent the user defined: a markdown file with front matter and a system prompt body. */
export interface NamedAgent {
  name: string;
  description: string;
  /** The tools it may use; null for its mode's whole set. */
  tools: string[] | null;
  /** The model the file names: shown, never switched to (children use the session's endpoint and model). */
  model: string | null;
  system: string;
  /** Where it came from, e.g. `.nex/agents/reviewer.md`. */
  label: string;
}

const AGENT_FILE_LIMIT = 64 * 1024;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * Reads `.nex/agents/*.md` and `.claude/agents/*.md` (project files through the workspace guard),
 * then the user's own folders; the first file wins a name. `problems` says what was left out and why.
 */
export async function findAgents(
  workspace: string,
  env: Record<string, string | undefined>,
): Promise<{ agents: NamedAgent[]; problems: string[] }> {
  const agents: NamedAgent[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const source of extensionDirs("agents", workspace, env)) {
    const files = listDir(source.path).filter((entry) => !entry.dir && entry.name.endsWith(".md"));
    if (files.length > MAX_ENTRIES)
      problems.push(
        `${source.label}: only the first ${MAX_ENTRIES} of ${files.length} agents were read.`,
      );
    for (const file of files.slice(0, MAX_ENTRIES)) {
      const where = `${source.label}/${file.name}`;
      const read = await readExtensionFile(
        source,
        join(source.path, file.name),
        AGENT_FILE_LIMIT,
        workspace,
      );
      if (read.type === "missing") continue;
      if (read.type === "refused") {
        problems.push(`${where} was not read: ${read.reason}.`);
        continue;
      }
      const parsed = await parseFrontMatter(read.text);
      if (!parsed.ok) {
        problems.push(`${where} was left out: ${parsed.error}.`);
        continue;
      }
      const name = textField(parsed.data, "name") ?? file.name.slice(0, -3);
      const description = textField(parsed.data, "description");
      if (!NAME.test(name)) {
        problems.push(
          `${where} was left out: its name "${name}" is not a plain name (letters, digits, . _ -).`,
        );
        continue;
      }
      if (!description) {
        problems.push(
          `${where} was left out: it has no \`description\`, so the model could not know when to use it.`,
        );
        continue;
      }
      if (seen.has(name)) continue;
      seen.add(name);
      agents.push({
        name,
        description,
        tools: toolList(parsed.data.tools),
        model: textField(parsed.data, "model"),
        system: parsed.body.trim(),
        label: where,
      });
    }
  }
  return { agents, problems };
}

/** `tools: read_file, grep` or a YAML list; absent or empty means the mode's whole set. */
function toolList(value: unknown): string[] | null {
  const items = Array.isArray(value)
    ? value.filter((item): item is string => typeof item === "string")
    : typeof value === "string"
      ? value.split(",")
      : [];
  const names = items.map((item) => item.trim()).filter(Boolean);
  return names.length > 0 ? names : null;
}
