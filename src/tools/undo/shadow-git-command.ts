import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

// Loaded on first use rather than at start-up: most sessions start no process for a while, if ever.
const childProcess = () => process.getBuiltinModule("node:child_process");

// Highest-precedence attributes: no end-of-line conversion or filter, so blobs are the exact bytes.
const ATTRIBUTES = "* -text -filter -ident -diff !eol !working-tree-encoding\n";

/** git could not be started at all. */
export class GitMissing extends Error {}

/** Runs one git command in the shadow repository and resolves with its standard output. */
export type ShadowGitCommand = (args: string[], input?: string | Buffer) => Promise<Buffer>;

/** The user's environment without any `GIT_` variable, plus a fixed identity and no prompts. */
function shadowEnv(env: Record<string, string | undefined>): Record<string, string> {
  const gitEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && !key.startsWith("GIT_")) gitEnv[key] = value;
  }
  return Object.assign(gitEnv, {
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_AUTHOR_NAME: "nex",
    GIT_AUTHOR_EMAIL: "nex@localhost",
    GIT_COMMITTER_NAME: "nex",
    GIT_COMMITTER_EMAIL: "nex@localhost",
    GIT_TERMINAL_PROMPT: "0",
    LC_ALL: "C",
  });
}

/** A git runner bound to the shadow repository, with none of the user's git configuration or hooks. */
export function shadowGitCommand(
  gitDir: string,
  workTree: string,
  env: Record<string, string | undefined>,
): ShadowGitCommand {
  const gitEnv = shadowEnv(env);
  return (args, input) =>
    new Promise((resolve, reject) => {
      const child = childProcess().execFile(
        "git",
        [
          `--git-dir=${gitDir}`,
          `--work-tree=${workTree}`,
          "-c",
          "core.autocrlf=false",
          "-c",
          "core.safecrlf=false",
          "-c",
          "core.fsmonitor=false",
          "-c",
          "core.hooksPath=/dev/null",
          "-c",
          "gc.auto=0",
          "-c",
          "advice.addEmbeddedRepo=false",
          ...args,
        ],
        { cwd: workTree, env: gitEnv, encoding: "buffer", maxBuffer: 1 << 30 },
        (error, stdout, stderr) => {
          if (error) {
            if ((error as { code?: unknown }).code === "ENOENT")
              reject(new GitMissing("git is not installed"));
            else
              reject(
                new Error(`git ${args[0]} failed: ${stderr.toString().trim() || error.message}`),
              );
            return;
          }
          resolve(stdout);
        },
      );
      if (input !== undefined) child.stdin?.end(input);
    });
}

/** Creates the shadow repository once; a failed attempt is retried on the next call. */
export function shadowGitInit(gitDir: string, git: ShadowGitCommand): () => Promise<void> {
  let ready: Promise<void> | null = null;
  return () => {
    ready ??= (async () => {
      await mkdir(gitDir, { recursive: true });
      await git(["init", "-q", "--template="]);
      await mkdir(join(gitDir, "info"), { recursive: true });
      await writeFile(join(gitDir, "info", "attributes"), ATTRIBUTES);
    })().catch((error: unknown) => {
      ready = null;
      throw error;
    });
    return ready;
  };
}

/** Splits `git ls-files -s` / `ls-tree` output (NUL-terminated) into its `<meta>\t<path>` lines. */
export function* nulLines(out: Buffer): Generator<{ meta: Buffer; path: Buffer }> {
  let start = 0;
  while (start < out.length) {
    let end = out.indexOf(0, start);
    if (end < 0) end = out.length;
    const line = out.subarray(start, end);
    start = end + 1;
    const tab = line.indexOf(0x09);
    if (tab < 0) continue;
    yield { meta: line.subarray(0, tab), path: line.subarray(tab + 1) };
  }
}
