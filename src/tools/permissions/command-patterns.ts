import { baseName, type ParsedCommand, type SubCommand, scanWords } from "../command-line/index.ts";
import { matchesGlob } from "../files/index.ts";

/** A rule's words, or an approval remembered for the session. */
export interface Pattern {
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

export function wordsOf(rule: string): string[] {
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

export function rememberedPattern(command: SubCommand): Pattern {
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
export function sessionScope(result: ParsedCommand): string {
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
