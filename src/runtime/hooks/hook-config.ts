import * as v from "valibot";

/** The events a hook can follow: Claude Code's names, so existing settings work unchanged. */
export const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "UserPromptSubmit",
  "Stop",
  "SessionStart",
  "Notification",
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

const HookCommand = v.object({
  type: v.literal("command"),
  command: v.pipe(v.string(), v.minLength(1)),
  /** Seconds. */
  timeout: v.optional(v.pipe(v.number(), v.minValue(1), v.maxValue(3600))),
});

const Matcher = v.object({
  /** A regular expression over tool names (nex's and Claude Code's); empty or absent matches all. */
  matcher: v.optional(v.string()),
  hooks: v.array(HookCommand),
});

/** `hooks` in a settings file: Claude Code's shape. */
export const HooksSchema = v.record(v.string(), v.array(Matcher));
export type HooksSetting = v.InferOutput<typeof HooksSchema>;

/** One hook command, where it came from, and what it follows. */
export interface HookEntry {
  event: HookEvent;
  matcher: RegExp | null;
  matcherText: string;
  command: string;
  timeoutMs: number;
  /** `~/.config/nex/config.json`, `.claude/settings.json`, ... */
  source: string;
  /** A project's hooks run only once the user approved them. */
  project: boolean;
}

const DEFAULT_TIMEOUT_S = 60;

/** The entries of one settings file's `hooks`, or the problems that kept some out. */
export function hookEntries(
  setting: unknown,
  source: string,
  project: boolean,
): { entries: HookEntry[]; problems: string[] } {
  const parsed = v.safeParse(HooksSchema, setting);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const where = (issue?.path ?? []).map((p) => String(p.key)).join(".");
    return {
      entries: [],
      problems: [
        `The hooks in ${source} were not loaded: ${where ? `at hooks.${where}: ` : ""}${issue?.message ?? "not Claude Code's hooks shape"}. Each event holds [{"matcher": "...", "hooks": [{"type": "command", "command": "..."}]}].`,
      ],
    };
  }
  const entries: HookEntry[] = [];
  const problems: string[] = [];
  for (const [event, matchers] of Object.entries(parsed.output)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      problems.push(
        `${source}: hooks for "${event}" are ignored; nex runs ${HOOK_EVENTS.join(", ")}.`,
      );
      continue;
    }
    for (const group of matchers) {
      const text = group.matcher ?? "";
      let matcher: RegExp | null = null;
      if (text !== "" && text !== "*") {
        try {
          matcher = new RegExp(`^(?:${text})$`);
        } catch (error) {
          problems.push(
            `${source}: the ${event} matcher ${JSON.stringify(text)} is not a regular expression (${(error as Error).message}); its hooks are ignored.`,
          );
          continue;
        }
      }
      for (const hook of group.hooks)
        entries.push({
          event: event as HookEvent,
          matcher,
          matcherText: text,
          command: hook.command,
          timeoutMs: (hook.timeout ?? DEFAULT_TIMEOUT_S) * 1000,
          source,
          project,
        });
    }
  }
  return { entries, problems };
}

// Claude Code's names for nex's tools, so a matcher written for Claude Code ("Bash", "Write|Edit")
// matches here too.
const CLAUDE_NAMES: Record<string, string> = {
  bash: "Bash",
  write_file: "Write",
  edit_file: "Edit",
  read_file: "Read",
  grep: "Grep",
  glob: "Glob",
  list_dir: "LS",
  todo_write: "TodoWrite",
  web_fetch: "WebFetch",
  web_search: "WebSearch",
  delegate: "Task",
};

/** The name Claude Code gives nex's tool, or nex's own. */
export function claudeName(tool: string): string {
  return CLAUDE_NAMES[tool] ?? tool;
}

/** Whether an entry follows `tool` (matched against nex's name and Claude Code's). */
export function matches(entry: HookEntry, tool: string | null): boolean {
  if (!entry.matcher || tool === null) return true;
  return entry.matcher.test(tool) || entry.matcher.test(claudeName(tool));
}
