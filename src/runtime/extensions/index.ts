// Extensions users already have from other agents: custom slash commands (`.claude/commands`), skills
// (`SKILL.md` folders) and `@path` attachments, read with the same care as nex's other own files.
// Their readers load only when a session has such folders or a prompt names something to expand:
// most sessions have neither, and each module loaded is start-up time.
import { existsSync } from "node:fs";
import type { CustomCommand } from "./custom-commands.ts";
import { extensionDirs } from "./locations.ts";
import type { Expansion, ExpansionContext } from "./prompt-expansion.ts";
import type { Extensions } from "./read-extensions.ts";

export type { CustomCommand } from "./custom-commands.ts";
export type { CommandRun, Expansion, ExpansionContext } from "./prompt-expansion.ts";
export type { Extensions } from "./read-extensions.ts";
export type { Skill } from "./skills.ts";

/** Reads the command and skill folders of `workspace` and of the user. */
export async function loadExtensions(
  workspace: string,
  env: Record<string, string | undefined>,
): Promise<Extensions> {
  const dirs = [
    ...extensionDirs("commands", workspace, env),
    ...extensionDirs("skills", workspace, env),
  ];
  if (!dirs.some((dir) => existsSync(dir.path)))
    return { commands: [], skills: [], skillsSection: null, tools: [], problems: [] };
  return (await import("./read-extensions.ts")).readExtensions(workspace, env);
}

// What may need expanding: a mention (`@path`), a command (`/name` first), a picture's name.
const EXPANDABLE = /@|^\s*\/|\.(?:png|jpe?g|gif|webp)/i;

/**
 * What the model gets for a typed prompt (see `prompt-expansion.ts`); a prompt with nothing to
 * expand is sent as typed.
 */
export async function expandPrompt(
  prompt: string,
  commands: readonly CustomCommand[],
  ctx: ExpansionContext,
): Promise<Expansion> {
  if (!EXPANDABLE.test(prompt))
    return { ok: true, text: prompt, notes: [], images: [], attached: [] };
  return (await import("./prompt-expansion.ts")).expandPrompt(prompt, commands, ctx);
}

export { parseFrontMatter, textField } from "./front-matter.ts";
export { readInstructions } from "./instruction-files.ts";
export { extensionDirs, listDir, MAX_ENTRIES, readExtensionFile } from "./locations.ts";

/** Project commands' consent (`nex commands`), loaded only by the commands that need it. */
export const commandConsent = () => import("./command-consent.ts");
type CommandsReportModule = typeof import("./commands-report.ts");
/** `nex commands`: loaded only by that command. */
export const commandsReport = async (...args: Parameters<CommandsReportModule["commandsReport"]>) =>
  (await import("./commands-report.ts")).commandsReport(...args);

type RolePromptModule = typeof import("./role-prompt.ts");
/** `--role NAME`'s prompt text (loaded only when a role is asked for). */
export const rolePrompt = async (...args: Parameters<RolePromptModule["rolePrompt"]>) =>
  (await import("./role-prompt.ts")).rolePrompt(...args);

export type {
  AttachmentContext,
  AttachmentRef,
  GivenAttachments,
} from "./message-attachments.ts";
/** What a chat message's attachments give the model (loaded at the first message that has some). */
export const readMessageAttachments = async (
  ...args: Parameters<typeof import("./message-attachments.ts")["readMessageAttachments"]>
) => (await import("./message-attachments.ts")).readMessageAttachments(...args);
