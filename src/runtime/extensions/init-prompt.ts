// `/init`: the model looks at the repository and writes or updates AGENTS.md with its own file tools,
// so the change goes through the usual approvals, which show the diff before anything is written.

/** The prompt `/init [focus]` sends, or null when the prompt is something else. */
export function initPrompt(prompt: string): string | null {
  const match = /^\/init(?:\s+([\s\S]*))?$/.exec(prompt.trim());
  if (!match) return null;
  const focus = match[1]?.trim();
  return [
    "/init: write or update AGENTS.md at the workspace root, the instructions coding agents read before they work here.",
    "",
    "First look at the repository: list the root; read the README, the build manifest (package.json, pyproject.toml, Cargo.toml, go.mod, Makefile, ...), the CI configuration, the linter and formatter settings, and any instructions already written for agents (AGENTS.md, CLAUDE.md, .cursorrules, .cursor/rules, .github/copilot-instructions.md, GEMINI.md). Glance at the main source folders and one or two tests.",
    "",
    "Then write AGENTS.md, short (at most about 150 lines) and only what you verified in the files:",
    "- what the project is, in two or three sentences;",
    "- the layout: the folders that matter and what lives in each;",
    "- the exact commands to install, build, test (also a single test), lint and format;",
    "- the conventions a newcomer would get wrong (style, naming, imports, error handling, tests);",
    "- anything that must not be done (generated files, secrets, slow or destructive commands).",
    "",
    "If AGENTS.md exists, read it first and change it with edit_file: keep what its authors wrote that is still true, fix what is wrong, add what is missing. Otherwise create it with write_file. Do not invent commands or rules you did not see. Change no other file. End with a few lines on what you wrote or changed.",
    ...(focus ? ["", `The user adds: ${focus}`] : []),
  ].join("\n");
}
