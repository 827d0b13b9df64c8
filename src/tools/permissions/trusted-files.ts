import { relative } from "node:path";
import { baseName, scanWords } from "../command-line/index.ts";
import { climbsOut, matchesGlob } from "../files/index.ts";

/**
 * Files that decide what a command runs (its scripts, hooks, build definitions and the configuration
 * that names other commands), by command. Once the user trusts a command (an allow rule, or a command
 * approved for the session), an edit to one of these files is an edit to what that trust covers, so
 * it asks. The project's own source code (tests included) is what such commands are meant to run and
 * is not listed. A pattern without a slash matches a file name anywhere; one with a slash matches the
 * end of a path (`.cargo/**` matches `sub/.cargo/config.toml`).
 */
const CONTROLLED_BY: ReadonlyArray<{
  commands: readonly string[];
  /** Only these subcommands (`git push` runs CI pipelines, `git status` does not). */
  subcommands?: readonly string[];
  files: readonly string[];
}> = [
  {
    commands: ["npm", "npx", "yarn", "pnpm", "pnpx", "bun", "bunx", "node", "corepack"],
    files: [
      "package.json",
      ".npmrc",
      ".yarnrc",
      ".yarnrc.yml",
      ".pnpmfile.cjs",
      "pnpm-workspace.yaml",
      "bunfig.toml",
      ".node-options",
      "node_modules/**",
    ],
  },
  { commands: ["make", "gmake"], files: ["Makefile", "makefile", "GNUmakefile", "*.mk"] },
  { commands: ["just"], files: ["justfile", "Justfile", ".justfile"] },
  { commands: ["task"], files: ["Taskfile.yml", "Taskfile.yaml"] },
  {
    commands: ["cargo", "rustc", "rustup"],
    files: ["Cargo.toml", "build.rs", ".cargo/**", "rust-toolchain", "rust-toolchain.toml"],
  },
  {
    commands: [
      "python",
      "python3",
      "pytest",
      "py.test",
      "tox",
      "nox",
      "pip",
      "pip3",
      "uv",
      "poetry",
      "hatch",
      "pdm",
    ],
    files: [
      "conftest.py",
      "pytest.ini",
      "pyproject.toml",
      "setup.py",
      "setup.cfg",
      "tox.ini",
      "noxfile.py",
      "sitecustomize.py",
      "usercustomize.py",
      "*.pth",
    ],
  },
  { commands: ["go"], files: ["go.mod", "go.work"] },
  {
    commands: ["gradle", "gradlew"],
    files: [
      "build.gradle",
      "build.gradle.kts",
      "settings.gradle",
      "settings.gradle.kts",
      "gradle.properties",
      "gradle/**",
    ],
  },
  { commands: ["mvn", "mvnw"], files: ["pom.xml", ".mvn/**"] },
  { commands: ["bundle", "rake", "ruby"], files: ["Gemfile", "Rakefile", ".bundle/**"] },
  { commands: ["direnv"], files: [".envrc"] },
  {
    commands: ["docker", "docker-compose", "podman", "podman-compose"],
    files: [
      "Dockerfile",
      "Containerfile",
      "*.Dockerfile",
      "docker-compose.yml",
      "docker-compose.yaml",
      "compose.yml",
      "compose.yaml",
    ],
  },
  { commands: ["jest"], files: ["jest.config.*", "jest.setup.*"] },
  {
    commands: ["vitest", "vite"],
    files: ["vitest.config.*", "vitest.workspace.*", "vite.config.*"],
  },
  { commands: ["mocha"], files: [".mocharc*"] },
  { commands: ["eslint"], files: ["eslint.config.*", ".eslintrc*"] },
  { commands: ["prettier"], files: ["prettier.config.*", ".prettierrc*"] },
  { commands: ["webpack"], files: ["webpack.config.*"] },
  { commands: ["rollup"], files: ["rollup.config.*"] },
  { commands: ["babel"], files: ["babel.config.*", ".babelrc*"] },
  { commands: ["playwright"], files: ["playwright.config.*"] },
  // What a push starts elsewhere, with the repository's secrets.
  {
    commands: ["git"],
    subcommands: ["push"],
    files: [
      ".github/workflows/**",
      ".github/actions/**",
      ".gitlab-ci.yml",
      ".circleci/**",
      ".travis.yml",
      "azure-pipelines.yml",
      "bitbucket-pipelines.yml",
      "Jenkinsfile",
      ".buildkite/**",
      ".woodpecker.yml",
      ".woodpecker/**",
    ],
  },
  { commands: ["gh"], files: [".github/workflows/**", ".github/actions/**"] },
  {
    commands: ["git"],
    files: [".gitattributes", ".gitmodules", ".pre-commit-config.yaml", "lefthook.yml"],
  },
];

/** Where git hooks usually live in a project (besides `core.hooksPath`): git runs them on commit. */
const HOOK_DIRS = [".husky/**", ".githooks/**"];

/** Files every shell, or git anywhere, reads as it starts: what is put there runs outside nex. */
const STARTUP_FILES = [
  ".gitconfig",
  ".config/git/**",
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".profile",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".zlogin",
  ".config/fish/**",
];

/** A command the user trusts, as its words, and why it runs unasked. */
export interface TrustedCommand {
  words: readonly string[];
  /** "which your allow rules run without asking" / "which you approved for this session" */
  trust: string;
}

/** Why an edit must not be approved silently. */
export interface ControlledEdit {
  why: string;
  /**
   * Refused even on --yes: inside `.git`, where no `git diff` shows the change to the user, and
   * git runs it later, outside nex.
   */
  hidden: boolean;
}

// Every tail of the path at a segment boundary, so `sub/.cargo/config.toml` meets `.cargo/**`.
function tails(path: string): string[] {
  const segments = path.split("/").filter((segment) => segment !== "" && segment !== ".");
  return segments.map((_, i) => segments.slice(i).join("/"));
}

function matchesFile(path: string, pattern: string): boolean {
  const ends = tails(path);
  if (!pattern.includes("/")) return matchesGlob(ends.at(-1) ?? "", pattern);
  // `dir/**` is everything under dir, dot files included (which a glob's `**` leaves out).
  if (pattern.endsWith("/**")) {
    const dir = pattern.slice(0, -3);
    return ends.some((tail) => tail === dir || tail.startsWith(`${dir}/`));
  }
  return ends.some((tail) => matchesGlob(tail, pattern));
}

// A rule whose first word is a glob (`*`, `np?`) trusts every command it matches.
function namesCommand(word: string, command: string): boolean {
  const name = baseName(word);
  if (name === command) return true;
  return /[*?[]/.test(name) && matchesGlob(command, name);
}

// Commands that run another one named after them: `npx jest`, `yarn vitest`, `python -m pytest`, `uv run pytest`.
const RUNNERS = new Set([
  "npx",
  "pnpx",
  "bunx",
  "npm",
  "yarn",
  "pnpm",
  "bun",
  "uv",
  "uvx",
  "poetry",
  "pdm",
  "hatch",
  "pipx",
  "python",
  "python3",
]);
const RUNNER_VERBS = new Set(["exec", "x", "run", "dlx", "tool"]);

/** The commands a trusted command runs by name: its own, and the one a runner starts. */
function commandWords(words: readonly string[]): string[] {
  const [first = ""] = words;
  const names = [first];
  if (!RUNNERS.has(baseName(first))) return names;
  for (let i = 1; i < words.length; i += 1) {
    const word = words[i] ?? "";
    if (word === "-m") {
      if (words[i + 1]) names.push(words[i + 1] ?? "");
      break;
    }
    if (word.startsWith("-") || RUNNER_VERBS.has(word)) continue;
    names.push(word);
    break;
  }
  return names;
}

// Words of a trusted command that name a file it runs or reads: `bash scripts/check.sh`, `./run.sh`.
function fileOperands(words: readonly string[]): string[] {
  return [words[0] ?? "", ...scanWords(words).operands]
    .filter((word) => !word.startsWith("-") && !/[*?[]/.test(word))
    .filter((word) => word.includes("/") || /\.[A-Za-z0-9]+$/.test(word))
    .map((word) => word.replace(/^(\.\/)+/, ""));
}

/**
 * The folder git runs hooks from in the workspace `root` (`abs`, as git itself reads it:
 * `core.hooksPath` from any config file, includes, quoting), relative to the root; null when it
 * lies outside the workspace or there is no repository. Asked afresh each time: an edit may have
 * just changed it.
 */
export function workspaceHooksDir(root: string, abs: string | null): string | null {
  const rel = abs === null ? null : relative(root, abs);
  return rel === null || rel === "" || climbsOut(rel) ? null : rel;
}

/**
 * Whether an edit to `path` (relative to the workspace root, or absolute outside it) changes what
 * code runs without the user seeing it: anything inside a `.git` directory and git hooks, always;
 * and the files a trusted command runs or reads as its definition. Null for an ordinary edit.
 */
export function controlledEdit(
  path: string,
  trusted: readonly TrustedCommand[],
  /** Git's configured hooks directory; asked for only when the path is not inside `.git`. */
  hooksDir: () => string | null,
): ControlledEdit | null {
  const segments = path.split("/");
  if (segments.includes(".git")) {
    return {
      why: `${path} is inside .git, git's own configuration and hooks: what is put there runs whenever anyone runs git, and no diff shows it`,
      hidden: true,
    };
  }
  const configured = hooksDir();
  const inHooksDir =
    (configured !== null && (path === configured || path.startsWith(`${configured}/`))) ||
    HOOK_DIRS.some((pattern) => matchesFile(path, pattern));
  if (inHooksDir) {
    return {
      why: `${path} is a git hook: git runs it on commit, checkout or push, outside nex`,
      hidden: false,
    };
  }
  if (STARTUP_FILES.some((pattern) => matchesFile(path, pattern))) {
    return {
      why: `${path} is read by every shell or git the user starts: what is put there runs outside nex`,
      hidden: false,
    };
  }
  for (const command of trusted) {
    const shown = `\`${command.words.join(" ")}\``;
    if (fileOperands(command.words).some((file) => file === path))
      return { why: `${path} is what ${shown} runs, ${command.trust}`, hidden: false };
    const names = commandWords(command.words);
    // The first operand: `push` in `git push origin`.
    const sub = scanWords(command.words).operands[0];
    for (const family of CONTROLLED_BY) {
      if (!family.commands.some((name) => names.some((word) => namesCommand(word, name)))) continue;
      if (
        family.subcommands &&
        !(sub && family.subcommands.some((name) => namesCommand(sub, name)))
      )
        continue;
      if (family.files.some((pattern) => matchesFile(path, pattern)))
        return { why: `${path} defines what ${shown} runs, ${command.trust}`, hidden: false };
    }
  }
  return null;
}
