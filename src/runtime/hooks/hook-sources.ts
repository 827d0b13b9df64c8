import { createHash } from "node:crypto";
import { readWorkspaceOwnFile } from "../../tools/index.ts";
import { type ConsentPlace, hasConsent, recordConsent } from "../consent/index.ts";
import { type HookEntry, hookEntries } from "./hook-config.ts";
import { hookScripts } from "./hook-scripts.ts";

/** The project files whose `hooks` nex reads (Claude Code's, and nex's own). */
export const PROJECT_SETTINGS = [
  ".nex/settings.json",
  ".claude/settings.json",
  ".claude/settings.local.json",
];
const SETTINGS_LIMIT = 256 * 1024;

/** The hooks of a session: those that run, those waiting for the user's approval, what was wrong. */
export interface LoadedHooks {
  active: HookEntry[];
  /** The project's hooks when the user has not approved them (as they are now); else null. */
  unapproved: { entries: HookEntry[]; digest: string } | null;
  problems: string[];
}

/** Reads the user's hooks (from nex's config) and the project's, and which of them may run. */
export async function loadHooks(options: {
  workspace: string;
  userHooks: unknown;
  configLabel: string;
  /** Where the user's consent is kept (never the data directory, which may be in the workspace). */
  consent: ConsentPlace;
  privatePaths: string[];
}): Promise<LoadedHooks> {
  const problems: string[] = [];
  const user =
    options.userHooks === undefined
      ? { entries: [], problems: [] }
      : hookEntries(options.userHooks, options.configLabel, false);
  problems.push(...user.problems);
  const project: HookEntry[] = [];
  for (const name of PROJECT_SETTINGS) {
    const read = await readWorkspaceOwnFile({
      workspace: options.workspace,
      name,
      limit: SETTINGS_LIMIT,
      privatePaths: options.privatePaths,
    });
    if (read.type === "missing") continue;
    if (read.type === "refused") {
      problems.push(`${name} was not read: ${read.reason}; its hooks do not run.`);
      continue;
    }
    let settings: unknown;
    try {
      settings = JSON.parse(read.text);
    } catch (error) {
      problems.push(
        `${name} is not valid JSON (${(error as Error).message}); its hooks do not run.`,
      );
      continue;
    }
    const hooks = (settings as { hooks?: unknown } | null)?.hooks;
    if (hooks === undefined) continue;
    const found = hookEntries(hooks, name, true);
    project.push(...found.entries);
    problems.push(...found.problems);
  }
  if (project.length === 0) return { active: user.entries, unapproved: null, problems };
  const digest = digestOf(project, options.workspace);
  if (hasConsent(options.consent, SUBJECT, digest))
    return { active: [...user.entries, ...project], unapproved: null, problems };
  return { active: user.entries, unapproved: { entries: project, digest }, problems };
}

/**
 * What the user approves: every project hook's event, matcher, command and timeout, by file, and the
 * content of the workspace scripts each command names.
 */
function digestOf(entries: HookEntry[], workspace: string): string {
  const canonical = entries.map((e) => {
    const scripts = hookScripts(e.command, workspace);
    const hook = [e.source, e.event, e.matcherText, e.command, e.timeoutMs];
    return scripts.length === 0 ? hook : [...hook, scripts];
  });
  return createHash("sha256").update(JSON.stringify(canonical)).digest("hex");
}

const SUBJECT = "hooks";

/** Records that the user approved the project's hooks as they are now (a change needs a new approval). */
export function approveProjectHooks(consent: ConsentPlace, digest: string): void {
  recordConsent(consent, SUBJECT, digest);
}

/** One line per hook, for `nex hooks` and the approval notice. */
export function describeHooks(entries: HookEntry[]): string[] {
  return entries.map(
    (e) =>
      `${e.event}${e.matcherText ? ` [${e.matcherText}]` : ""}: ${e.command} (${e.source}${e.timeoutMs !== 60_000 ? `, ${e.timeoutMs / 1000} s` : ""})`,
  );
}
