import type { PermissionCheck } from "../../protocol/index.ts";
import { type SubCommand, shortCommand } from "../command-line/index.ts";
import { loadGlobMatcher } from "../files/index.ts";
import { codeOption } from "./code-options.ts";
import { hazardOf } from "./command-hazards.ts";
import { matchesDeny, matchesPattern, type Pattern, sessionScope } from "./command-patterns.ts";
import { coverageHazard } from "./coverage-hazards.ts";
import type { PermissionState } from "./permission-state.ts";
import { isReadOnlyCommandLine } from "./read-only-commands.ts";

// A rule's words may be globs (`np?`, `rm *`): the matcher is loaded with the command checks, which
// load with the first command checked.
await loadGlobMatcher();

// A command that would run without a person's yes must be confined; when it cannot be, a person
// decides (warned that it runs unconfined), and without one it is refused with the reason.
export async function checkCommand(
  state: PermissionState,
  command: string,
  summarize: () => Promise<string>,
): Promise<PermissionCheck> {
  const verdict = await checkCommandRules(state, command, summarize);
  if (verdict.type !== "allow") return verdict;
  const unconfined = state.options.sandboxUnavailable();
  if (!unconfined) return verdict;
  if (state.options.unattended) {
    return {
      type: "deny",
      reason: `${unconfined}. nex does not run commands unconfined without a person's approval; tell the user`,
    };
  }
  return {
    type: "ask",
    summary: `${await summarize()} (⚠ would run UNCONFINED: ${unconfined})`,
    unconfined,
  };
}

// The summary (a stat or two) is made only when the answer needs one.
async function checkCommandRules(
  state: PermissionState,
  command: string,
  summarize: () => Promise<string>,
): Promise<PermissionCheck> {
  const result = await state.parse(command);
  const ask = async (note = ""): Promise<Extract<PermissionCheck, { type: "ask" }>> => ({
    type: "ask",
    summary: `${await summarize()}${note}`,
    scope: sessionScope(result),
  });
  if (result.type === "unparsed") {
    if (state.mode === "approve_all" && state.deny.length === 0) return { type: "allow" };
    return ask(` (could not be parsed: ${result.reason})`);
  }
  for (const sub of result.commands) {
    const rule = state.deny.find((pattern) => matchesDeny(sub.words, pattern));
    if (rule) {
      return {
        type: "deny",
        reason: `\`${shortCommand(sub.text)}\` matches the deny rule "${rule.words.join(" ")}"; the command was not run.`,
      };
    }
  }
  const context = await state.options.hazards();
  const hazard = hazardOf(result.commands, context);
  if (hazard) {
    // Only a person's yes (each time: never for the session), or a rule the user wrote for it,
    // runs what undo cannot repair.
    const ruled = result.commands.every((sub) =>
      state.allow.some((pattern) => matchesPattern(sub.words, pattern)),
    );
    if (state.mode === "approve_all" && ruled) return { type: "allow" };
    if (state.mode === "approve_all") {
      return {
        type: "deny",
        reason: `${hazard}; nex does not run such commands on --yes / approve_all. Do it another way inside the workspace, or tell the user to run it themselves (or to allow it with a commands.allow rule in the config).`,
      };
    }
    return ask(` (⚠ ${hazard})`);
  }
  if (
    state.mode !== "approve_all" &&
    isReadOnlyCommandLine(result.commands, context.roots, context.allowedPaths)
  )
    return { type: "allow" };
  const hidden = result.commands.filter((sub) => sub.opaque);
  // `--yes` approves only what undo can repair: not a change to what the snapshot leaves out.
  if (state.mode === "approve_all" && context.coverage && !state.approvedCommands.has(command)) {
    const root = context.roots[context.roots.length - 1] ?? "/";
    const uncovered = await coverageHazard(result.commands, context.coverage, root);
    if (uncovered) {
      return {
        type: "deny",
        reason: `${uncovered}; nex does not run such commands on --yes / approve_all. Do it another way (leave that path alone), or tell the user to run it themselves.`,
      };
    }
  }
  if (state.mode === "approve_all") {
    return hidden.length > 0 && state.deny.length > 0
      ? ask(" (runs code nex cannot check against the deny rules)")
      : { type: "allow" };
  }
  if (state.approvedCommands.has(command)) return { type: "allow" };
  // A read-only part of an approved pipeline (`npm test | tail -5`) needs no rule of its own.
  const ruleFor = (sub: SubCommand): Pattern | undefined =>
    sub.opaque
      ? undefined
      : ([...state.allow, ...state.approvedPatterns].find((pattern) =>
          matchesPattern(sub.words, pattern),
        ) ??
        (isReadOnlyCommandLine([sub], context.roots, context.allowedPaths)
          ? { words: sub.words, exact: true }
          : undefined));
  const rules = result.commands.map(ruleFor);
  if (result.commands.length === 0 || rules.some((rule) => rule === undefined)) return ask();
  // A rule trusts a command, not the code its extra options would make it load.
  const widened = result.commands
    .map((sub, i) => codeOption(sub.words, rules[i]?.words.length ?? 0))
    .find((warning) => warning !== null);
  if (widened) return { ...(await ask(` (⚠ ${widened})`)), warning: widened };
  return { type: "allow" };
}
