import { type ConfigFlags, resolveConfig } from "../config/index.ts";
import { consentPlace } from "../consent/index.ts";
import type { HookEntry } from "./hook-config.ts";
import { approveProjectHooks, describeHooks, loadHooks, PROJECT_SETTINGS } from "./hook-sources.ts";

/** One hook as `nex hooks --json` lists it. */
export interface HookRow {
  event: string;
  matcher: string | null;
  command: string;
  timeout_seconds: number;
  source: string;
  /** False for a project's hook waiting for `nex hooks approve`. */
  runs: boolean;
}

const row = (entry: HookEntry, runs: boolean): HookRow => ({
  event: entry.event,
  matcher: entry.matcherText || null,
  command: entry.command,
  timeout_seconds: entry.timeoutMs / 1000,
  source: entry.source,
  runs,
});

/**
 * `nex hooks`: the hooks that run here and those waiting for approval; with `approve`, approves the
 * project's hooks as they are now (a later change to them needs a new approval).
 */
export async function hooksReport(
  flags: ConfigFlags,
  env: Record<string, string | undefined>,
  cwd: string,
  approve: boolean,
): Promise<{ text: string; ok: boolean; rows: HookRow[]; problems: string[] }> {
  const config = resolveConfig(flags, env, cwd);
  const consent = consentPlace({
    env,
    workspace: config.workspace,
    writable: config.sandbox.writable ?? [],
  });
  const loaded = await loadHooks({
    workspace: config.workspace,
    userHooks: config.hooks,
    configLabel: config.configPath ?? "the config file",
    consent,
    privatePaths: [config.dataDir],
  });
  const lines: string[] = [...loaded.problems];
  const rows = [
    ...loaded.active.map((entry) => row(entry, true)),
    ...(loaded.unapproved?.entries ?? []).map((entry) => row(entry, false)),
  ];
  const problems = loaded.problems;
  if (approve) {
    if (!loaded.unapproved)
      return {
        text: [
          ...lines,
          `Nothing to approve: ${config.workspace} has no project hooks waiting (${PROJECT_SETTINGS.join(", ")}).`,
        ].join("\n"),
        ok: true,
        rows,
        problems,
      };
    try {
      approveProjectHooks(consent, loaded.unapproved.digest);
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
        `Approved the hooks of ${config.workspace}; they run from the next session on:`,
        ...describeHooks(loaded.unapproved.entries).map((line) => `  ${line}`),
        "A change to them needs a new approval.",
      ].join("\n"),
      ok: true,
      rows,
      problems,
    };
  }
  if (loaded.active.length > 0)
    lines.push("Hooks that run here:", ...describeHooks(loaded.active).map((l) => `  ${l}`));
  if (loaded.unapproved)
    lines.push(
      "The project's hooks, not run until you approve them with `nex hooks approve`:",
      ...describeHooks(loaded.unapproved.entries).map((l) => `  ${l}`),
      ...(consent.refused ? [`nex keeps no approval at ${consent.file}: ${consent.refused}`] : []),
    );
  if (lines.length === 0)
    lines.push(
      `No hooks: set "hooks" in ${config.configPath ?? "the config file"}, or in ${PROJECT_SETTINGS.join(" / ")} (Claude Code's format).`,
    );
  return { text: lines.join("\n"), ok: problems.length === 0, rows, problems };
}
