// Reading the command and skill folders that exist: loaded only when one of them does.
import type { Tool } from "../../tools/index.ts";
import type { CustomCommand } from "./custom-commands.ts";
import { findCommands } from "./custom-commands.ts";
import { extensionDirs } from "./locations.ts";
import { findSkills, type Skill, skillsSection, skillTool } from "./skills.ts";

/** What a workspace and its user bring: commands, skills, the `skill` tool, the prompt's list. */
export interface Extensions {
  commands: CustomCommand[];
  skills: Skill[];
  /** The system prompt's list of skills, or null when there are none. */
  skillsSection: string | null;
  /** The `skill` tool, only when there are skills. */
  tools: Tool[];
  /** What was left out and why, for one notice at start. */
  problems: string[];
}

/** Reads the command and skill folders of `workspace` and of the user. */
export async function readExtensions(
  workspace: string,
  env: Record<string, string | undefined>,
): Promise<Extensions> {
  const [found, skillsFound] = await Promise.all([
    findCommands(extensionDirs("commands", workspace, env), workspace),
    findSkills(extensionDirs("skills", workspace, env), workspace),
  ]);
  const tools: Tool[] =
    skillsFound.skills.length > 0 ? [await skillTool(skillsFound.skills, workspace)] : [];
  return {
    commands: found.commands,
    skills: skillsFound.skills,
    skillsSection: skillsSection(skillsFound.skills),
    tools,
    problems: [...found.problems, ...skillsFound.problems],
  };
}
