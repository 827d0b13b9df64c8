// Claude Code's command-line flags that orchestrators and the Claude Agent SDK pass (the SDK builds
// its executable's command line in `ProcessTransport.initialize`). Each is accepted, ignored with a
// reason, or refused with a reason; none is silently dropped.

/** What nex does with one of Claude Code's flags. */
export interface ClaudeFlag {
  type: "string" | "boolean";
  /** `use`: nex honours it (see run-flags.ts); `ignore`: accepted, no effect; `refuse`: a usage error. */
  effect: "use" | "ignore" | "refuse";
  /** For `ignore` and `refuse`: why, in the words the user sees. */
  why?: string;
  /** Said on stderr when given: an ignored flag whose absence of effect the user should know about. */
  tell?: boolean;
}

const ignore = (type: ClaudeFlag["type"], why: string, tell = false): ClaudeFlag => ({
  type,
  effect: "ignore",
  why,
  tell,
});
const refuse = (type: ClaudeFlag["type"], why: string): ClaudeFlag => ({
  type,
  effect: "refuse",
  why,
});
const use = (type: ClaudeFlag["type"]): ClaudeFlag => ({ type, effect: "use" });

export const CLAUDE_FLAGS: Record<string, ClaudeFlag> = {
  "output-format": use("string"),
  "input-format": use("string"),
  "include-partial-messages": use("boolean"),
  "permission-prompt-tool": use("string"),
  "permission-mode": use("string"),
  "dangerously-skip-permissions": use("boolean"),
  continue: use("boolean"),
  resume: use("string"),
  "session-id": use("string"),
  "json-schema": use("string"),
  tools: use("string"),
  allowedTools: ignore(
    "string",
    "nex has no per-tool pre-approval; actions that need approval are asked about (--permission-prompt-tool stdio) or refused",
    true,
  ),
  "allowed-tools": ignore(
    "string",
    "nex has no per-tool pre-approval; actions that need approval are asked about (--permission-prompt-tool stdio) or refused",
    true,
  ),
  disallowedTools: use("string"),
  "system-prompt": use("string"),
  "append-system-prompt": use("string"),
  print: ignore("boolean", "nex run is always headless"),
  verbose: ignore("boolean", "stream-json output is always complete"),
  debug: ignore("boolean", "nex writes its progress to stderr"),
  "debug-file": ignore("string", "nex writes its progress to stderr"),
  "debug-to-stderr": ignore("boolean", "nex writes its progress to stderr"),
  thinking: ignore("string", "reasoning is the endpoint's; nex sends no thinking settings"),
  "thinking-display": ignore(
    "string",
    "reasoning is always in the stream when the endpoint sends it",
  ),
  "max-thinking-tokens": ignore(
    "string",
    "reasoning is the endpoint's; nex sends no thinking budget",
    true,
  ),
  effort: ignore("string", "nex sends no effort setting", true),
  betas: ignore("string", "Anthropic beta headers are not sent"),
  "setting-sources": ignore("string", "nex reads its own config file, never Claude's settings"),
  "include-hook-events": ignore("boolean", "nex has no hooks"),
  "session-mirror": ignore("boolean", "nex keeps its own journal"),
  "project-config-root": ignore("string", "nex reads its own config file"),
  "await-initialize": ignore("boolean", "nex reads initialize before the first message anyway"),
  "initialize-fields": ignore("string", "nex reads initialize before the first message anyway"),
  "no-optional-locks": ignore("boolean", "nex takes no optional locks"),
  "hard-fail": ignore("boolean", "nex fails with its exit code"),
  "allow-dangerously-skip-permissions": ignore(
    "boolean",
    "it only permits switching to bypassPermissions later, which nex always permits",
  ),
  "permission-prompts": ignore("string", "nex asks about every action that needs approval"),
  channels: ignore("string", "nex has no channels"),
  // `--mcp-config` is nex's own option (the same .mcp.json shape), not one of these.
  "strict-mcp-config": ignore("boolean", "nex loads no MCP servers from Claude's config"),
  "fallback-model": ignore("string", "nex stays on the one model it was given", true),
  "replay-user-messages": ignore("boolean", "user messages are not echoed", true),
  "no-session-persistence": ignore(
    "boolean",
    "nex always keeps its session journal (undo and resume need it)",
    true,
  ),
  "max-budget-usd": refuse(
    "string",
    "nex knows no prices, so it cannot keep a dollar budget; bound the run with --max-turns or --max-time",
  ),
  "task-budget": refuse(
    "string",
    "nex has no token budget; bound the run with --max-turns or --max-time",
  ),
  agent: refuse("string", "nex has no named agents"),
  "plugin-dir": refuse("string", "nex has no plugins"),
  "plugin-dir-no-mcp": refuse("string", "nex has no plugins"),
  "fork-session": refuse("boolean", "nex cannot fork a session; start a new one"),
  "resume-session-at": refuse("string", "nex resumes a session at its end only"),
  "resume-drops-turn": refuse("string", "nex resumes a session at its end only"),
  settings: refuse("string", "nex reads its own config file (--config), not Claude settings"),
  "managed-settings": refuse("string", "nex has no managed settings"),
  "managed-settings-in-initialize": refuse("boolean", "nex has no managed settings"),
  "sdk-url": refuse("string", "nex speaks stream-json over stdio only"),
  "add-dir": refuse(
    "string",
    "nex's extra folders are set in its config file (allowedPaths), where the sandbox sees them too",
  ),
};

/** The flags as `node:util` parseArgs options. */
export function claudeFlagOptions(): Record<string, { type: "string" | "boolean" }> {
  return Object.fromEntries(
    Object.entries(CLAUDE_FLAGS).map(([name, flag]) => [name, { type: flag.type }]),
  );
}
