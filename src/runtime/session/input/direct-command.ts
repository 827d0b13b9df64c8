// `!command` typed as a prompt: the command runs at once (asked and sandboxed like any command) and
// the command with its output joins the conversation, for the model to see with the next prompt.
// No request is sent for it.
import type { UserMessage } from "../../../protocol/index.ts";

/** The command of a prompt `!command`, or null for any other prompt. */
export function directCommand(prompt: string): string | null {
  const match = /^!(?!`)\s*([\s\S]+)$/.exec(prompt.trim());
  const command = match?.[1]?.trim() ?? "";
  return command === "" ? null : command;
}

/** What the model is told of a command the user ran. */
export function directCommandMessage(command: string, output: string): UserMessage {
  return {
    type: "user",
    text: `[nex] The user ran \`${command}\` themselves (not a request to you; no answer needed now). What it printed:\n\`\`\`\n${output.trimEnd()}\n\`\`\``,
  };
}
