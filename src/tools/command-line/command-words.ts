// Reading one simple command's words: which program runs, its operands and options, git's
// subcommand, where `find` starts. The permission rules, the hazard guards and undo's attribution
// of changes all read commands through these, so they cannot disagree about what a command says.

/** The last segment of a path word: `/usr/bin/git` → `git`. */
export function baseName(word: string): string {
  return word.split("/").pop() ?? word;
}

/** The program a command word runs: backslashes dropped as bash drops them (`\rm`), then its base name. */
export function commandName(word: string): string {
  return baseName(word.replaceAll("\\", ""));
}

/** A command's words after its name, sorted: what is an operand, which options it gives. */
export interface WordScan {
  /** Words that are not options, in order; every word after `--`; a lone `-` (stdin). */
  operands: string[];
  /** Letters of short options, joined or apart (`-rf`, `-r -f`), before `--`. */
  shortFlags: Set<string>;
  /** Long options without their value (`--force`, `--prune` of `--prune=now`), before `--`. */
  longOptions: Set<string>;
}

export function scanWords(words: readonly string[]): WordScan {
  const scan: WordScan = { operands: [], shortFlags: new Set(), longOptions: new Set() };
  let ended = false;
  for (const word of words.slice(1)) {
    if (ended || word === "-" || !word.startsWith("-")) scan.operands.push(word);
    else if (word === "--") ended = true;
    else if (word.startsWith("--")) scan.longOptions.add(word.split("=")[0] ?? word);
    else for (const c of word.slice(1)) scan.shortFlags.add(c);
  }
  return scan;
}

/** git's subcommand and where it is in `words` (`git -C dir -c k=v push`: `push`, 5); past git's own options. */
export function gitSubcommand(words: readonly string[]): { sub: string | undefined; at: number } {
  let at = 1;
  // `-C dir` and `-c key=value` take their value as the next word.
  while (at < words.length && (words[at] ?? "").startsWith("-"))
    at += /^-[Cc]$/.test(words[at] ?? "") ? 2 : 1;
  return { sub: words[at], at };
}

/** Where a `find` starts: its words before the first test, option or `(`/`!`; `.` when none are given. */
export function findStarts(words: readonly string[]): string[] {
  const starts: string[] = [];
  for (const word of words.slice(1)) {
    if (/^[-(!)]/.test(word)) break;
    starts.push(word);
  }
  return starts.length > 0 ? starts : ["."];
}

/** A command as a message quotes it: at most 60 characters. */
export function shortCommand(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
