import type { PermissionMode } from "../../protocol/index.ts";
import type { ParsedCommand } from "../command-line/index.ts";
import { parseCommand } from "../command-line/index.ts";
import type { Tool } from "../tool.ts";
import type { HazardContext } from "./command-hazards.ts";
import { type Pattern, wordsOf } from "./command-patterns.ts";
import type { TrustedCommand } from "./trusted-files.ts";

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

/** One host's rules and mode, with the approvals the user gave for the session. */
export interface PermissionState {
  options: PermissionOptions;
  mode: PermissionMode;
  allow: Pattern[];
  deny: Pattern[];
  approvedTools: Set<string>;
  approvedCommands: Set<string>;
  approvedPatterns: Pattern[];
  /** A command line parsed once (a failure is a result, never a rejection). */
  parse(command: string): Promise<ParsedCommand>;
  /** The commands that run unasked, whose definitions an edit must not change silently. */
  trusted(): TrustedCommand[];
}

/** The rules of `options` with no approvals yet. */
export function createPermissionState(options: PermissionOptions): PermissionState {
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

  return {
    options,
    mode: options.mode,
    allow,
    deny,
    approvedTools,
    approvedCommands,
    approvedPatterns,
    parse,
    trusted,
  };
}
