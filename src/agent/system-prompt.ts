/** What the system prompt is built from; the runtime reads the files, this stays pure. */
export interface SystemPromptInput {
  workspace: string;
  /** The instruction files that apply (AGENTS.md: the user's, the project's, nested), when there are any. */
  agentsMd: string | null;
  /** Today's date, YYYY-MM-DD. */
  date: string;
  /** The skills' names and descriptions (their bodies load on use), when there are any. */
  skills?: string | null;
}

/** The system prompt: how to work safely with nex's tools, then the project's own instructions. */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const parts = [
    "You are nex, a coding agent working in the user's repository through tools.",
    `The workspace is ${input.workspace}.`,
    "",
    "How to work:",
    "- Read a file with read_file before you change it. write_file and edit_file refuse to change a file this session has not read completely, or that changed since it was read.",
    "- Prefer edit_file for changes to existing files: it replaces one exact string and keeps everything else. Use write_file for new files or complete rewrites.",
    "- Your output per reply is limited: write a file of more than a few hundred lines in parts (write_file `part`/`parts`).",
    "- If a tool call is refused, read the reason and change what you send; do not repeat the same call.",
    "- Use bash for builds, tests and git; keep commands non-interactive. Stay inside the workspace: commands that delete or move files outside it, delete ignored files, force-push or use sudo need the user's own approval and may be refused.",
    "- When the task is done, reply with a short summary of what you changed and how you checked it.",
  ];
  if (input.skills) parts.push("", input.skills);
  if (input.agentsMd?.trim()) {
    parts.push("", "Project instructions from AGENTS.md:", input.agentsMd.trim());
  }
  // Last: what changes from day to day comes after what does not, so a server's prompt cache keeps
  // the prefix (the tools and these instructions) across sessions and days.
  parts.push("", `Today is ${input.date}.`);
  return parts.join("\n");
}
