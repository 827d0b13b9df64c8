import type { PermissionCheck, PermissionMode, ToolInvocation } from "../../protocol/index.ts";
import { matchesGlob } from "../files/index.ts";
import {
  baseName,
  type ParsedCommand,
  parseCommand,
  type SubCommand,
  scanWords,
  shortCommand,
} from "../shell/index.ts";
import type { Tool } from "../tool.ts";
import { codeOption } from "./code-options.ts";
import { type HazardContext, hazardOf } from "./command-hazards.ts";
import { coverageHazard } from "./coverage-hazards.ts";
import { planRefusal } from "./plan-mode.ts";
import { isReadOnlyCommandLine } from "./read-only-commands.ts";
import { controlledEdit, type TrustedCommand } from "./trusted-files.ts";

/** The user's command rules, like `git status`, `npm test`, `rm *`. */
export interface CommandRules {
  allow?: string[];
  deny?: string[];
}

/** What permissions need from the host: the tools, where a file tool's path lands, and summaries. */
export interface PermissionOptions {
  mode: PermissionMode;
  rules?: CommandRules;
  tools: Map<string, Tool>;
  /** Null when the call's arguments are invalid (the dispatcher will refuse it without asking). */
  validArgs(tool: Tool, args: Record<string, unknown>): boolean;
  /**
   * Where a path lands: inside the workspace, in an allowed outside path, or refused (null), and
   * how it is shown (relative to the workspace root inside it, symlinks resolved).
   */
  locate(path: string): Promise<{ where: "inside" | "allowed"; display: string } | null>;
  summarize(tool: Tool, args: Record<string, unknown>): Promise<string>;
  /** What a file tool's call would change, for the prompt (null when there is nothing to show). */
  preview?(tool: Tool, args: Record<string, unknown>): Promise<string | null>;
  /** Where commands run, for judging what undo could not repair. */
  hazards(): Promise<HazardContext>;
  /** Why commands cannot be confined although they must be (then none runs without a person's yes). */
  sandboxUnavailable(): string | null;
  /** No person can answer (headless): a question becomes a refusal that says why. */
  unattended: boolean;
}

/** The permission rules of one host, with the approvals the user gave for the session. */
export interface Permissions {
  check(call: ToolInvocation): Promise<PermissionCheck>;
  remember(call: ToolInvocation): void;
  /**
   * The allow rules that would let this call run unasked in this project from now on, precise (a
   * command and its subcommand, never a blanket tool), or why it cannot be saved (a hazard, a
   * command with no subcommand, code nex cannot see, a tool approved per session only).
   */
  savableRules(call: ToolInvocation): Promise<{ rules: string[] } | { refused: string }>;
  setMode(mode: PermissionMode): void;
  mode(): PermissionMode;
}

interface Pattern {
  words: string[];
  /** Only exactly these words match (a remembered approval of a destructive command). */
  exact: boolean;
}

// Approving one of these for the session approves only the exact words, never a prefix.
const DESTRUCTIVE = new Set([
  "rm",
  "rmdir",
  "dd",
  "mkfs",
  "chmod",
  "chown",
  "mv",
  "cp",
  "kill",
  "pkill",
  "killall",
  "shred",
  "truncate",
]);

function wordsOf(rule: string): string[] {
  return rule
    .trim()
    .split(/\s+/)
    .filter((word) => word.length > 0);
}

/**
 * A rule's words match the first words of a command (`git status` matches `git status --short`);
 * `*` and other glob characters match within one word, a lone `*` any word, and the first word also
 * matches by its base name (`rm` matches `/bin/rm`).
 */
export function matchesPattern(command: string[], pattern: Pattern): boolean {
  if (pattern.exact && command.length !== pattern.words.length) return false;
  if (command.length < pattern.words.length) return false;
  return pattern.words.every((word, i) => {
    const actual = command[i] ?? "";
    if (word === "*") return true;
    if (word === actual) return true;
    if (i === 0 && word === baseName(actual)) return true;
    return /[*?[]/.test(word) && matchesGlob(actual, word);
  });
}

/**
 * Whether a command matches a deny rule: as `matchesPattern` after dropping backslashes (`\\rm`, `r\\m`
 * run rm), or with the rule's flags found anywhere in the command, in any order, joined or split
 * (`rm -rf` denies `rm -r -f`, `rm -fr` and `rm x -rf`).
 */
export function matchesDeny(command: string[], rule: Pattern): boolean {
  const words = command.map((word) => word.replaceAll("\\", ""));
  if (matchesPattern(words, rule)) return true;
  const isFlag = (word: string): boolean => /^-[^-*?[]|^--[^*?[]+$/.test(word);
  const flags = rule.words.filter((word, i) => i > 0 && isFlag(word));
  if (flags.length === 0) return false;
  const scan = scanWords(words);
  const rest = rule.words.filter((word, i) => i === 0 || !isFlag(word));
  if (!matchesPattern([words[0] ?? "", ...scan.operands], { words: rest, exact: false }))
    return false;
  return flags.every((flag) =>
    flag.startsWith("--")
      ? scan.longOptions.has(flag)
      : [...flag.slice(1)].every((c) => scan.shortFlags.has(c)),
  );
}

function rememberedPattern(command: SubCommand): Pattern {
  const [first = "", second] = command.words;
  if (
    !DESTRUCTIVE.has(baseName(first)) &&
    second !== undefined &&
    /^[a-z][\w:.-]*$/i.test(second)
  ) {
    return { words: [first, second], exact: false };
  }
  return { words: command.words, exact: true };
}

/** What remember() would approve for a command line, in words for the prompt. */
function sessionScope(result: ParsedCommand): string {
  if (result.type !== "parsed") return "this exact command line, again, for this session";
  const patterns = result.commands
    .filter((sub) => !sub.opaque)
    .map((sub) => rememberedPattern(sub))
    .map((pattern) =>
      pattern.exact ? `\`${pattern.words.join(" ")}\`` : `\`${pattern.words.join(" ")} …\``,
    );
  const unique = [...new Set(patterns)];
  return unique.length === 0
    ? "this exact command line, again, for this session"
    : `this command line, and ${unique.join(", ")} commands, for this session`;
}

/** Builds the permission rules; read-only tools never ask, deny rules always win. */
export function createPermissions(options: PermissionOptions): Permissions {
  let mode = options.mode;
  const allow: Pattern[] = (options.rules?.allow ?? []).map((rule) => ({
    words: wordsOf(rule),
    exact: false,
  }));
  const deny: Pattern[] = (options.rules?.deny ?? []).map((rule) => ({
    words: wordsOf(rule),
    exact: false,
  }));
  const approvedTools = new Set<string>();
  const approvedCommands = new Set<string>();
  const approvedPatterns: Pattern[] = [];
  const parsed = new Map<string, Promise<ParsedCommand>>();

  // The commands that run unasked, whose definitions an edit must not change silently.
  const trusted = (): TrustedCommand[] => [
    ...allow.map((pattern) => ({
      words: pattern.words,
      trust: "which your allow rules run without asking",
    })),
    ...approvedPatterns.map((pattern) => ({
      words: pattern.words,
      trust: "which you approved for this session",
    })),
  ];

  const parse = (command: string): Promise<ParsedCommand> => {
    let result = parsed.get(command);
    if (!result) {
      result = parseCommand(command).catch((error: unknown) => ({
        type: "unparsed" as const,
        reason: String(error),
      }));
      parsed.set(command, result);
    }
    return result;
  };

  // A command that would run without a person's yes must be confined; when it cannot be, a person
  // decides (warned that it runs unconfined), and without one it is refused with the reason.
  const checkBash = async (
    command: string,
    summarize: () => Promise<string>,
  ): Promise<PermissionCheck> => {
    const verdict = await checkBashRules(command, summarize);
    if (verdict.type !== "allow") return verdict;
    const unconfined = options.sandboxUnavailable();
    if (!unconfined) return verdict;
    if (options.unattended) {
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
  };

  // The summary (a stat or two) is made only when the answer needs one.
  const checkBashRules = async (
    command: string,
    summarize: () => Promise<string>,
  ): Promise<PermissionCheck> => {
    const result = await parse(command);
    const ask = async (note = ""): Promise<Extract<PermissionCheck, { type: "ask" }>> => ({
      type: "ask",
      summary: `${await summarize()}${note}`,
      scope: sessionScope(result),
    });
    if (result.type === "unparsed") {
      if (mode === "approve_all" && deny.length === 0) return { type: "allow" };
      return ask(` (could not be parsed: ${result.reason})`);
    }
    for (const sub of result.commands) {
      const rule = deny.find((pattern) => matchesDeny(sub.words, pattern));
      if (rule) {
        return {
          type: "deny",
          reason: `\`${shortCommand(sub.text)}\` matches the deny rule "${rule.words.join(" ")}"; the command was not run.`,
        };
      }
    }
    const context = await options.hazards();
    const hazard = hazardOf(result.commands, context);
    if (hazard) {
      // Only a person's yes (each time: never for the session), or a rule the user wrote for it,
      // runs what undo cannot repair.
      const ruled = result.commands.every((sub) =>
        allow.some((pattern) => matchesPattern(sub.words, pattern)),
      );
      if (mode === "approve_all" && ruled) return { type: "allow" };
      if (mode === "approve_all") {
        return {
          type: "deny",
          reason: `${hazard}; nex does not run such commands on --yes / approve_all. Do it another way inside the workspace, or tell the user to run it themselves (or to allow it with a commands.allow rule in the config).`,
        };
      }
      return ask(` (⚠ ${hazard})`);
    }
    if (
      mode !== "approve_all" &&
      isReadOnlyCommandLine(result.commands, context.roots, context.allowedPaths)
    )
      return { type: "allow" };
    const hidden = result.commands.filter((sub) => sub.opaque);
    // `--yes` approves only what undo can repair: not a change to what the snapshot leaves out.
    if (mode === "approve_all" && context.coverage && !approvedCommands.has(command)) {
      const root = context.roots[context.roots.length - 1] ?? "/";
      const uncovered = await coverageHazard(result.commands, context.coverage, root);
      if (uncovered) {
        return {
          type: "deny",
          reason: `${uncovered}; nex does not run such commands on --yes / approve_all. Do it another way (leave that path alone), or tell the user to run it themselves.`,
        };
      }
    }
    if (mode === "approve_all") {
      return hidden.length > 0 && deny.length > 0
        ? ask(" (runs code nex cannot check against the deny rules)")
        : { type: "allow" };
    }
    if (approvedCommands.has(command)) return { type: "allow" };
    // A read-only part of an approved pipeline (`npm test | tail -5`) needs no rule of its own.
    const ruleFor = (sub: SubCommand): Pattern | undefined =>
      sub.opaque
        ? undefined
        : ([...allow, ...approvedPatterns].find((pattern) => matchesPattern(sub.words, pattern)) ??
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
  };

  // A call that reaches out (a fetch, a search) asks in ask and auto_edit mode and runs on --yes or
  // once approved for the session; one with a caution (a private address) asks every time, and
  // with no person to ask it is refused with the caution's words.
  const checkReach = async (
    tool: Tool,
    args: Record<string, unknown>,
  ): Promise<PermissionCheck> => {
    const caution = (await tool.caution?.(args).catch(() => null)) ?? null;
    if (caution) {
      if (options.unattended) return { type: "deny", reason: caution };
      return {
        type: "ask",
        summary: `${await options.summarize(tool, args)} (⚠ ${caution})`,
        warning: caution,
      };
    }
    if (mode === "approve_all" || approvedTools.has(tool.name)) return { type: "allow" };
    return { type: "ask", summary: await options.summarize(tool, args) };
  };

  return {
    mode: () => mode,
    setMode(next) {
      mode = next;
    },
    async check(call) {
      const tool = options.tools.get(call.name);
      if (tool?.reach && options.validArgs(tool, call.args)) return checkReach(tool, call.args);
      if (!tool || tool.mutates === false || !options.validArgs(tool, call.args))
        return { type: "allow" };
      const summarize = () => options.summarize(tool, call.args);
      const command = tool.command(call.args);
      if (mode === "plan") {
        // Plan mode: only what reads runs; the model is told to propose instead.
        const parsed = command === null ? null : await parse(command);
        const { roots, allowedPaths } = await options.hazards();
        const reads =
          parsed?.type === "parsed" && isReadOnlyCommandLine(parsed.commands, roots, allowedPaths);
        if (command === null)
          return planRefusal(tool.name, null, { type: "ask", summary: await summarize() });
        const verdict = await checkBash(command, summarize);
        return reads || verdict.type === "deny"
          ? verdict
          : planRefusal(tool.name, command, verdict);
      }
      if (command !== null) return checkBash(command, summarize);
      if (tool.mutates === "exec") {
        // A tool that acts outside the workspace in its own way (a server's deploy): nothing can
        // confine or undo it, so only a person, or --yes, lets it run.
        if (mode === "approve_all" || approvedTools.has(tool.name)) return { type: "allow" };
        return { type: "ask", summary: await summarize() };
      }
      const path = tool.target(call.args);
      const located =
        path === null ? { where: "inside" as const, display: "" } : await options.locate(path);
      // A path the guard refuses is not worth asking about: the tool refuses it with `outside_workspace`.
      if (located === null) return { type: "allow" };
      const { hooksDir } = await options.hazards();
      const controlled =
        path === null
          ? null
          : controlledEdit(located.display, trusted(), () => hooksDir?.() ?? null);
      if (mode === "approve_all") {
        if (!controlled?.hidden) return { type: "allow" };
        return {
          type: "deny",
          reason: `${controlled.why}; nex does not make such edits on --yes / approve_all. Do it another way, or tell the user to make this change themselves.`,
        };
      }
      // Never approved silently, neither by auto_edit nor by an earlier approval for the session.
      if (controlled) {
        const preview = await options.preview?.(tool, call.args).catch(() => null);
        return {
          type: "ask",
          summary: `${await summarize()} (⚠ ${controlled.why})`,
          ...(preview ? { preview } : {}),
          warning: controlled.why,
        };
      }
      if (mode === "auto_edit" && located.where === "inside") return { type: "allow" };
      if (approvedTools.has(tool.name)) return { type: "allow" };
      const preview = await options.preview?.(tool, call.args).catch(() => null);
      return {
        type: "ask",
        summary: await summarize(),
        scope: `every ${tool.name} call, for this session (edits to files that control what runs still ask)`,
        ...(preview ? { preview } : {}),
      };
    },
    async savableRules(call) {
      const tool = options.tools.get(call.name);
      const command = tool?.command(call.args) ?? null;
      if (!tool || command === null)
        return {
          refused: `${call.name} approvals are not saved (they hold for this session); for edits without asking, use /mode auto_edit or "permissionMode" in the config`,
        };
      const result = await parse(command);
      if (result.type !== "parsed" || result.commands.length === 0)
        return { refused: "nex could not parse this command, so it cannot write a precise rule" };
      if (result.commands.some((sub) => sub.opaque))
        return {
          refused:
            "it runs code nex cannot see (a substitution or a script), so no rule can cover it safely",
        };
      if (hazardOf(result.commands, await options.hazards()))
        return { refused: "undo could not repair what it does, so it asks every time" };
      const { roots, allowedPaths } = await options.hazards();
      const needRules = result.commands.filter(
        (sub) => !isReadOnlyCommandLine([sub], roots, allowedPaths),
      );
      if (needRules.length === 0)
        return { refused: "it only reads, and read-only commands already run without asking" };
      const patterns = needRules.map(rememberedPattern);
      const exact = patterns.find((pattern) => pattern.exact);
      if (exact)
        return {
          refused: `a rule is a command and its subcommand (\`npm test\`), and \`${exact.words.join(" ")}\` has none or changes files undo must see each time; add a rule by hand if you mean every such command`,
        };
      return { rules: [...new Set(patterns.map((pattern) => pattern.words.join(" ")))] };
    },
    remember(call) {
      const tool = options.tools.get(call.name);
      if (!tool || (tool.mutates === false && !tool.reach)) return;
      const command = tool.command(call.args);
      if (command === null) {
        approvedTools.add(tool.name);
        return;
      }
      approvedCommands.add(command);
      void parse(command).then((result) => {
        if (result.type !== "parsed") return;
        for (const sub of result.commands)
          if (!sub.opaque) approvedPatterns.push(rememberedPattern(sub));
      });
    },
  };
}
