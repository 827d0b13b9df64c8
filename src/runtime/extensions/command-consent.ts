// A project's command file that runs shell lines (`!cmd`, !`cmd`) is code the repository runs on this
// machine, like a hook: it runs only once the user approved it as it is now (its text and every
// workspace file its lines run), with --yes too. A command without shell lines is a prompt, which
// the model then acts on under the usual approvals.
import {
  approvalHash,
  approvedCode,
  type ConsentPlace,
  hasConsent,
  recordConsent,
} from "../consent/index.ts";
import type { CustomCommand } from "./custom-commands.ts";

export { COMMAND_FILE_LIMIT } from "./custom-commands.ts";

// A whole line `!command`, or Claude Code's inline !`command`.
const SHELL_LINE = /^!(?!`)[ \t]*(.+)$/gm;
const SHELL_INLINE = /!`([^`\n]+)`/g;

/** The shell lines of a command file's body, in order: where each is, its text and its command. */
export function shellLines(body: string): { at: number; raw: string; command: string }[] {
  return [
    ...[...body.matchAll(SHELL_LINE)].map((m) => ({
      at: m.index,
      raw: m[0],
      command: (m[1] ?? "").trim(),
    })),
    ...[...body.matchAll(SHELL_INLINE)].map((m) => ({
      at: m.index,
      raw: m[0],
      command: (m[1] ?? "").trim(),
    })),
  ].sort((a, b) => a.at - b.at);
}

/** Where a command came from, as the user reads it: `this repository's .claude/commands/x.md`. */
export function commandOrigin(command: CustomCommand): string {
  const file = `${command.source.label}/${command.name.replace(":", "/")}.md`;
  return command.source.scope === "project" ? `this repository's ${file}` : `your ${file}`;
}

const subjectOf = (command: CustomCommand) =>
  `command:${command.source.label}/${command.name.replace(":", "/")}.md`;

/** What approving the command approves: its file's text and what its shell lines run. */
export function commandHash(text: string, body: string, workspace: string): string {
  return approvalHash(
    text,
    approvedCode(
      shellLines(body).map((line) => line.command),
      workspace,
    ),
  );
}

/** Whether the command may run its shell lines: a user's own always; a project's once approved as it is. */
export function commandApproved(
  command: CustomCommand,
  hash: string,
  consent: ConsentPlace,
): boolean {
  return command.source.scope === "user" || hasConsent(consent, subjectOf(command), hash);
}

/** Records the user's approval of the project command as it is now. */
export function approveCommand(command: CustomCommand, hash: string, consent: ConsentPlace): void {
  recordConsent(consent, subjectOf(command), hash);
}

/** What the user is told when a project command's lines wait for approval: which file, what it runs, the fix. */
export function waitingMessage(
  command: CustomCommand,
  lines: readonly { command: string }[],
  consent: ConsentPlace,
): string {
  const shown = lines
    .slice(0, 3)
    .map((line) => `\`${line.command}\``)
    .join(", ");
  const more = lines.length > 3 ? ", ..." : "";
  const kept = consent.refused
    ? ` nex keeps no approval at ${consent.file}: ${consent.refused}`
    : "";
  return `/${command.name} comes from ${commandOrigin(command)} and runs shell line${lines.length === 1 ? "" : "s"} on this machine (${shown}${more}); nex runs a repository's command lines only once you approved them as they are. Read the file, then approve it with \`nex commands approve ${command.name}\` in this folder (a later change asks again).${kept} Nothing was sent.`;
}
