// The examples of the docs: their fenced blocks, and the command lines in their shell blocks. A block
// right after `<!-- docs-test: parse only: REASON -->` needs what a test cannot have (a hosted model,
// the network): its command lines are checked by the parser only.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const root = resolve(import.meta.dirname, "..", "..");

const pages = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

export interface Block {
  page: string;
  body: string;
  /** Why the block's commands are only parsed, or null when they are run. */
  parseOnly: string | null;
}

/** The fenced blocks of `lang` in every page. */
export function blocks(lang: RegExp): Block[] {
  return pages.flatMap((page) =>
    [
      ...readFileSync(join(root, page), "utf8").matchAll(
        /(?:<!-- docs-test: parse only: ([^>]*?) -->\s*\n)?```(\w+)\n([\s\S]*?)```/g,
      ),
    ]
      .filter((match) => lang.test(match[2] ?? ""))
      .map((match) => ({ page, body: match[3] ?? "", parseOnly: match[1] ?? null })),
  );
}

/** Shell words of a simple command line: quotes and comments as sh reads them, no expansions. */
export function words(line: string): string[] {
  const found: string[] = [];
  for (const match of line.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(#.*$)|(\S+)/g)) {
    // A comment, a redirection, a pipe or the next command ends this one.
    if (match[3] !== undefined || /^(\d?>>?|<|\||&&|;|&)/.test(match[4] ?? "")) break;
    found.push(match[1] ?? match[2] ?? match[4] ?? "");
  }
  return found;
}

/** The `nex` command lines of the shell examples (continued lines joined), `npx nex` as `nex`. */
export function nexLines(): { page: string; line: string; parseOnly: string | null }[] {
  return blocks(/^(sh|bash)$/).flatMap(({ page, body, parseOnly }) =>
    body
      .replace(/\\\n/g, " ")
      .split("\n")
      .map((line) => line.trim().replace(/^npx nex\b/, "nex"))
      .filter((line) => words(line)[0] === "nex")
      .map((line) => ({ page, line, parseOnly })),
  );
}
