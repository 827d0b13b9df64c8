// `nex commands`: the slash commands from files, where each comes from, and which of the project's
// run shell lines and wait for the user's approval; `nex commands approve [NAME]` approves them as
// they are now (a later change to the file, or to what its lines run, asks again).
import { type ConfigFlags, resolveConfig } from "../config/index.ts";
import { consentPlace } from "../consent/index.ts";
import type { CustomCommand } from "./custom-commands.ts";
import { parseFrontMatter } from "./front-matter.ts";
import { readExtensionFile } from "./locations.ts";
import { readExtensions } from "./read-extensions.ts";

const commandConsent = () => import("./command-consent.ts");

/** One command as `nex commands --json` lists it. */
export interface CommandRow {
  name: string;
  /** Where it comes from, as the text list says it. */
  origin: string;
  /** The shell lines it runs. */
  runs: string[];
  /** Whether those lines may run; null when it runs none. */
  approved: boolean | null;
}

/** One command as it is now: its shell lines and the hash an approval would record. */
async function inspect(command: CustomCommand, workspace: string) {
  const { COMMAND_FILE_LIMIT, commandHash, shellLines } = await commandConsent();
  const read = await readExtensionFile(command.source, command.path, COMMAND_FILE_LIMIT, workspace);
  if (read.type !== "read") return null;
  const parsed = await parseFrontMatter(read.text);
  if (!parsed.ok) return null;
  const lines = shellLines(parsed.body).map((line) => line.command);
  return { lines, hash: commandHash(read.text, parsed.body, workspace) };
}

export async function commandsReport(
  flags: ConfigFlags,
  env: Record<string, string | undefined>,
  cwd: string,
  approve: { name: string | null } | null,
): Promise<{ text: string; ok: boolean; rows: CommandRow[]; problems: string[] }> {
  const { approveCommand, commandApproved, commandOrigin } = await commandConsent();
  const config = resolveConfig(flags, env, cwd);
  const consent = consentPlace({
    env,
    workspace: config.workspace,
    writable: config.sandbox.writable ?? [],
  });
  const extensions = await readExtensions(config.workspace, env);
  const lines: string[] = [...extensions.problems];
  const waiting: { command: CustomCommand; hash: string; lines: string[] }[] = [];
  const listed: string[] = [];
  const rows: CommandRow[] = [];
  const problems = extensions.problems;
  for (const command of extensions.commands) {
    const found = await inspect(command, config.workspace);
    const runs = found && found.lines.length > 0 ? found.lines : [];
    const state =
      runs.length === 0
        ? ""
        : found && commandApproved(command, found.hash, consent)
          ? `; runs ${runs.map((l) => `\`${l}\``).join(", ")}`
          : `; runs ${runs.map((l) => `\`${l}\``).join(", ")}: not until you approve it`;
    if (found && runs.length > 0 && !commandApproved(command, found.hash, consent))
      waiting.push({ command, hash: found.hash, lines: runs });
    listed.push(`  /${command.name}: ${commandOrigin(command)}${state}`);
    rows.push({
      name: command.name,
      origin: commandOrigin(command),
      runs,
      approved: runs.length === 0 ? null : !waiting.some((w) => w.command === command),
    });
  }
  if (approve) {
    const chosen = waiting.filter((w) => approve.name === null || w.command.name === approve.name);
    if (approve.name !== null && chosen.length === 0) {
      const known = extensions.commands.some((c) => c.name === approve.name);
      return {
        text: [
          ...lines,
          known
            ? `/${approve.name} needs no approval: it runs no shell lines, is your own, or is approved as it is.`
            : `No command /${approve.name} here; \`nex commands\` lists them.`,
        ].join("\n"),
        ok: known,
        rows,
        problems,
      };
    }
    if (chosen.length === 0)
      return {
        text: [...lines, "Nothing to approve: no project command waits."].join("\n"),
        ok: true,
        rows,
        problems,
      };
    try {
      for (const w of chosen) approveCommand(w.command, w.hash, consent);
    } catch (error) {
      return {
        text: [...lines, `Not approved: ${(error as Error).message}`].join("\n"),
        ok: false,
        rows,
        problems,
      };
    }
    return {
      text: [
        ...lines,
        `Approved in ${config.workspace}; these run their command lines from now on:`,
        ...chosen.map(
          (w) =>
            `  /${w.command.name} (${commandOrigin(w.command)}): ${w.lines.map((l) => `\`${l}\``).join(", ")}`,
        ),
        "A change to a file, or to a workspace file its lines run, needs a new approval.",
      ].join("\n"),
      ok: true,
      rows,
      problems,
    };
  }
  if (listed.length === 0)
    lines.push(
      "No commands from files: put markdown files in .claude/commands or ~/.claude/commands.",
    );
  else lines.push("Commands from files:", ...listed);
  if (waiting.length > 0)
    lines.push(
      "A repository's command that runs shell lines runs only once approved: `nex commands approve [NAME]`.",
      ...(consent.refused ? [`nex keeps no approval at ${consent.file}: ${consent.refused}`] : []),
    );
  return { text: lines.join("\n"), ok: true, rows, problems };
}
