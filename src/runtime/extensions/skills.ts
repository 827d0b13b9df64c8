import { realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import type { ToolOutcome } from "../../protocol/index.ts";
import { defineJsonSchemaTool, type Tool } from "../../tools/index.ts";
import { parseFrontMatter, textField } from "./front-matter.ts";
import { type ExtensionDir, listDir, MAX_ENTRIES, readExtensionFile } from "./locations.ts";

/** A skill: a folder with a SKILL.md, known by name and description until it is used. */
export interface Skill {
  name: string;
  description: string;
  /** The skill's folder. */
  dir: string;
  source: ExtensionDir;
}

/** Most bytes of a SKILL.md or a file beside it that nex reads. */
const SKILL_FILE_LIMIT = 256 * 1024;
/** Most characters of one description in the system prompt. */
const DESCRIPTION_CHARS = 240;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Finds the skills in `dirs` (the first folder wins a name); `problems` says what was left out and why. */
export async function findSkills(
  dirs: ExtensionDir[],
  workspace: string,
): Promise<{ skills: Skill[]; problems: string[] }> {
  const skills: Skill[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const source of dirs) {
    const entries = listDir(source.path).filter((entry) => entry.dir);
    if (entries.length > MAX_ENTRIES)
      problems.push(
        `${source.label}: only the first ${MAX_ENTRIES} of ${entries.length} skills were read.`,
      );
    for (const entry of entries.slice(0, MAX_ENTRIES)) {
      const dir = join(source.path, entry.name);
      const read = await readExtensionFile(
        source,
        join(dir, "SKILL.md"),
        SKILL_FILE_LIMIT,
        workspace,
      );
      if (read.type === "missing") continue;
      const where = `${source.label}/${entry.name}/SKILL.md`;
      if (read.type === "refused") {
        problems.push(`${where} was not read: ${read.reason}.`);
        continue;
      }
      const parsed = await parseFrontMatter(read.text);
      if (!parsed.ok) {
        problems.push(`${where} was left out: ${parsed.error}.`);
        continue;
      }
      const name = textField(parsed.data, "name") ?? entry.name;
      const description = textField(parsed.data, "description");
      if (!NAME.test(name)) {
        problems.push(
          `${where} was left out: its name "${name}" is not a plain name (letters, digits, . _ -).`,
        );
        continue;
      }
      if (!description) {
        problems.push(
          `${where} was left out: it has no \`description\` in its front matter, so the model could not know when to use it.`,
        );
        continue;
      }
      if (seen.has(name)) continue;
      seen.add(name);
      skills.push({ name, description, dir, source });
    }
  }
  return { skills, problems };
}

/** The system prompt's list of skills: names and descriptions only, the bodies are loaded on use. */
export function skillsSection(skills: Skill[]): string | null {
  if (skills.length === 0) return null;
  const lines = skills.map((skill) => {
    const description =
      skill.description.length > DESCRIPTION_CHARS
        ? `${skill.description.slice(0, DESCRIPTION_CHARS - 3)}...`
        : skill.description;
    return `- ${skill.name}: ${description}`;
  });
  return [
    "Skills (instructions for particular tasks; when a task matches one, load it with the skill tool first and follow it):",
    ...lines,
  ].join("\n");
}

/** The `skill` tool: loads a skill's instructions, or a file beside them. Registered only when skills exist. */
export function skillTool(skills: Skill[], workspace: string): Promise<Tool> {
  const byName = new Map(skills.map((skill) => [skill.name, skill]));
  return defineJsonSchemaTool({
    name: "skill",
    description:
      "Load a skill listed under Skills in the system prompt: returns its instructions and the files beside them. " +
      "Pass `file` to read one of those files.",
    inputSchema: {
      type: "object",
      properties: {
        name: { type: "string", enum: skills.map((skill) => skill.name) },
        file: { type: "string", description: "A file of the skill's folder, as listed." },
      },
      required: ["name"],
      additionalProperties: false,
    },
    mutates: false,
    summarize: async (args) =>
      `skill ${String(args.name)}${args.file ? ` ${String(args.file)}` : ""}`,
    async execute(args): Promise<ToolOutcome> {
      const skill = byName.get(String(args.name));
      if (!skill) return refused(`There is no skill named ${String(args.name)}.`);
      if (typeof args.file === "string") return readBeside(skill, args.file, workspace);
      const read = await readExtensionFile(
        skill.source,
        join(skill.dir, "SKILL.md"),
        SKILL_FILE_LIMIT,
        workspace,
      );
      if (read.type !== "read")
        return refused(
          `The skill ${skill.name} could not be loaded: ${read.type === "missing" ? "its SKILL.md is gone" : read.reason}. Go on without it and tell the user.`,
        );
      const parsed = await parseFrontMatter(read.text);
      const body = parsed.ok ? parsed.body.trim() : read.text;
      const files = filesBeside(skill.dir);
      return {
        isError: false,
        content:
          `Skill ${skill.name} (${skill.source.label}):\n\n${body}` +
          (read.truncated
            ? `\n\n(The file is ${read.size} bytes; only the first ${SKILL_FILE_LIMIT} were read.)`
            : "") +
          (files.length > 0
            ? `\n\nFiles beside it (read one with skill, name "${skill.name}", file "<path>"):\n${files.join("\n")}`
            : ""),
      };
    },
  });
}

function refused(message: string): ToolOutcome {
  return { isError: true, code: "invalid_arguments", content: message };
}

/** The files of a skill's folder, a level deep, with their sizes; SKILL.md itself left out. */
function filesBeside(dir: string): string[] {
  const out: string[] = [];
  for (const entry of listDir(dir)) {
    if (out.length >= 50) break;
    if (entry.name === "SKILL.md") continue;
    if (entry.dir) {
      for (const inner of listDir(join(dir, entry.name))) {
        if (out.length >= 50) break;
        if (!inner.dir) out.push(describe(dir, `${entry.name}/${inner.name}`));
      }
    } else out.push(describe(dir, entry.name));
  }
  return out;
}

function describe(dir: string, name: string): string {
  try {
    return `- ${name} (${statSync(join(dir, name)).size} bytes)`;
  } catch {
    return `- ${name}`;
  }
}

async function readBeside(skill: Skill, file: string, workspace: string): Promise<ToolOutcome> {
  if (isAbsolute(file) || file.split(/[\\/]/).includes(".."))
    return refused(
      `\`file\` must be a path inside the skill's folder, as listed, not ${JSON.stringify(file)}.`,
    );
  const path = join(skill.dir, file);
  // A link inside the skill's folder may not lead out of it.
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return refused(`The skill ${skill.name} has no file ${file}. Load the skill to see its files.`);
  }
  const root = realpathSync(skill.dir);
  if (real !== root && !real.startsWith(root + sep))
    return refused(`${file} leads out of the skill's folder (a link), so it was not read.`);
  const read = await readExtensionFile(skill.source, path, SKILL_FILE_LIMIT, workspace);
  if (read.type !== "read")
    return refused(
      `${file} of the skill ${skill.name} was not read: ${read.type === "missing" ? "it does not exist" : read.reason}.`,
    );
  return {
    isError: false,
    content:
      read.text +
      (read.truncated
        ? `\n\n(${relative(skill.dir, path)} is ${read.size} bytes; only the first ${SKILL_FILE_LIMIT} were read.)`
        : ""),
  };
}
