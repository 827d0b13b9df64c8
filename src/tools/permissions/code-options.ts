import { baseName } from "../command-line/index.ts";

/**
 * Options that make a command load code or configuration named on its own command line, by command.
 * An allow rule matches a command's first words (`npm test` matches `npm test --watch`), so these
 * words after the rule's would let a trusted command run a file the model just wrote as an ordinary
 * one (`npm test --script-shell=./x.sh`, `make test -f x.mk`, `pytest -p x`).
 */
const CODE_OPTIONS: ReadonlyArray<{ commands: readonly string[]; options: readonly string[] }> = [
  {
    commands: ["npm", "npx", "pnpm", "yarn", "bun"],
    options: [
      "--script-shell",
      "--node-options",
      "--userconfig",
      "--globalconfig",
      "--prefix",
      "--dir",
      "-C",
      "--call",
      "-c",
      "--shell",
      "--require",
      "-r",
      "--import",
      "--loader",
      "--preload",
    ],
  },
  {
    commands: ["node"],
    options: [
      "-r",
      "--require",
      "--import",
      "--loader",
      "--experimental-loader",
      "-e",
      "--eval",
      "-p",
      "--print",
      "--env-file",
    ],
  },
  {
    commands: ["make", "gmake"],
    options: [
      "-f",
      "--file",
      "--makefile",
      "-C",
      "--directory",
      "-I",
      "--include-dir",
      "-E",
      "--eval",
    ],
  },
  {
    commands: ["git"],
    options: [
      "-c",
      "--config",
      "--config-env",
      "--exec-path",
      "--output",
      "--exec",
      "-x",
      "--upload-pack",
      "--receive-pack",
      "--template",
      "--ext-diff",
      "--textconv",
    ],
  },
  {
    commands: ["python", "python3", "pytest", "py.test", "tox", "nox"],
    options: ["-p", "-c", "-o", "--override-ini", "--rootdir", "--confcutdir"],
  },
  { commands: ["cargo"], options: ["--config", "-Z", "--manifest-path"] },
  { commands: ["go"], options: ["-exec", "-toolexec", "-modfile", "-overlay", "-C"] },
  { commands: ["just"], options: ["-f", "--justfile", "-d", "--working-directory"] },
];

function isOption(word: string, option: string): boolean {
  if (word === option || word.startsWith(`${option}=`)) return true;
  // A short option with its value attached: `-fx.mk`, `-pplugin`.
  return /^-[A-Za-z]$/.test(option) && word.startsWith(option) && !word.startsWith("--");
}

/**
 * The first word after a trusted rule's own words that makes the command run code named on its
 * command line, as a warning; null when there is none. Make's `NAME=value` overrides count: they
 * replace what a recipe runs (`make test CC=./x.sh`).
 */
export function codeOption(words: readonly string[], ruleWords: number): string | null {
  const [first = ""] = words;
  const name = baseName(first);
  const extra = words.slice(Math.max(1, ruleWords));
  const shown = `\`${words.slice(0, Math.max(1, ruleWords)).join(" ")}\``;
  for (const family of CODE_OPTIONS) {
    if (!family.commands.includes(name)) continue;
    const found = extra.find((word) => family.options.some((option) => isOption(word, option)));
    if (found) return `\`${found}\` makes ${shown} load code or settings named on its command line`;
  }
  if (name === "make" || name === "gmake") {
    const override = extra.find((word) => /^[A-Za-z_.][\w.]*=/.test(word));
    if (override) return `\`${override}\` overrides what ${shown}'s recipes run`;
  }
  return null;
}
