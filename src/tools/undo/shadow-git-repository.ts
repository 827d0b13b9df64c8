import { dirname, join, relative } from "node:path";
import { climbsOut, keyOfBytes, splitNul } from "../files/index.ts";
import {
  GitMissing,
  nulLines,
  type ShadowGitCommand,
  shadowGitCommand,
  shadowGitInit,
} from "./shadow-git-command.ts";
import { cachedIndexTree } from "./shadow-git-index.ts";
import { stageWorkspace } from "./shadow-git-stage.ts";
import type {
  Coverage,
  ShadowGit,
  ShadowGitOptions,
  SnapshotResult,
  TreeChange,
  TreeEntry,
  TreeResult,
} from "./shadow-git-types.ts";

const EXCLUDES = ["/.git", ".*.nex-*.tmp", ".*.nex-parts", ".*.nex-*.parts"];

// More ignored entries than this are not recorded: undo then deletes nothing the turn seemed to create.
const MAX_IGNORED = 20_000;

function escapeExclude(path: string): string {
  return `/${path.replace(/[\\*?[\]!#\s]/g, (c) => `\\${c}`)}`;
}

async function guarded<T>(
  work: () => Promise<T>,
): Promise<T | { type: "unavailable"; reason: string }> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof GitMissing) return { type: "unavailable", reason: "git is not installed" };
    return { type: "unavailable", reason: (error as Error).message };
  }
}

/**
 * The tree of what was just staged: git's own cache of it in the index when a staging that changed
 * nothing left it whole (most commands change nothing), else `write-tree`.
 */
async function treeOfIndex(gitDir: string, git: ShadowGitCommand): Promise<string> {
  return cachedIndexTree(join(gitDir, "index")) ?? (await git(["write-tree"])).toString().trim();
}

/**
 * The snapshot commit of a tree. Only these snapshots move `refs/heads/snapshots`: git is asked for
 * the newest once, then the last commit is the parent. A tree equal to the newest snapshot's
 * (nothing changed since) is that commit again: the ref already holds it.
 */
function snapshotCommits(
  git: ShadowGitCommand,
): (tree: string, message: string) => Promise<string> {
  let newest: { commit: string; tree: string } | null = null;
  const read = async () => {
    const format = "--format=%(objectname) %(tree)";
    const line = (await git(["for-each-ref", format, "refs/heads/snapshots"])).toString().trim();
    const [commit, tree] = line.split(" ");
    return commit && tree ? { commit, tree } : null;
  };
  return async (tree, message) => {
    newest ??= await read();
    if (newest?.tree === tree) return newest.commit;
    const parent = newest ? ["-p", newest.commit] : [];
    const commit = (await git(["commit-tree", tree, ...parent, "-m", message])).toString().trim();
    await git(["update-ref", "refs/heads/snapshots", commit]);
    newest = { commit, tree };
    return commit;
  };
}

/** The shadow repository, created on first use (see `shadow-git.ts`). */
export function openShadowGit({
  gitDir,
  workTree,
  env,
  limits,
  excludeDirs = [],
}: ShadowGitOptions): ShadowGit {
  // A checkpoint directory (or any of nex's data) placed inside the workspace must not snapshot itself:
  // undo would then rewind the journal it is reading.
  const inside = [dirname(gitDir), ...excludeDirs]
    .map((dir) => relative(workTree, dir))
    .filter((rel) => rel && !climbsOut(rel));
  const excludes = [...EXCLUDES, ...new Set(inside)].map((rel, i) =>
    i < EXCLUDES.length ? rel : escapeExclude(rel),
  );
  const git = shadowGitCommand(gitDir, workTree, env);
  const ensure = shadowGitInit(gitDir, git);
  const clock: { lastStart: number | null } = { lastStart: null };
  const stage = () => stageWorkspace({ gitDir, workTree, git, ensure, excludes, limits, clock });

  const stagedTree = () => treeOfIndex(gitDir, git);
  const commitOf = snapshotCommits(git);
  const listIgnored = async (): Promise<string[]> =>
    splitNul(
      await git(["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"]),
    );

  return {
    coverage: () =>
      guarded(async (): Promise<Coverage> => {
        const staged = await stage();
        if (staged.type === "unavailable") return staged;
        // Files over the size limit are excluded too; they are named as such, not as ignored.
        const tooBig = new Set(staged.skipped);
        const ignored = (await listIgnored()).filter((key) => !tooBig.has(key));
        const nested = [...staged.nested];
        for (const { meta, path } of nulLines(await git(["ls-files", "-z", "-s"]))) {
          if (meta.subarray(0, 7).toString("latin1") === "160000 ") nested.push(keyOfBytes(path));
        }
        return {
          type: "partial",
          ignored: ignored.length > MAX_IGNORED ? null : ignored,
          skipped: staged.skipped,
          nested,
        };
      }),
    snapshot: (message) =>
      guarded(async (): Promise<SnapshotResult> => {
        const staged = await stage();
        if (staged.type === "unavailable") return staged;
        const tree = await stagedTree();
        const commit = await commitOf(tree, message);
        // Ignored directories are listed once, not file by file (node_modules holds many).
        const ignored = await listIgnored();
        return {
          type: "taken",
          commit,
          tree,
          skipped: staged.skipped,
          ignored: ignored.length > MAX_IGNORED ? null : ignored,
          modes: staged.modes,
        };
      }),
    currentTree: () =>
      guarded(async (): Promise<TreeResult> => {
        const staged = await stage();
        if (staged.type === "unavailable") return staged;
        return {
          type: "taken",
          tree: await stagedTree(),
          skipped: staged.skipped,
          modes: staged.modes,
        };
      }),
    async changes(commit, tree) {
      const out = await git([
        "diff-tree",
        "-r",
        "-z",
        "--no-renames",
        "--name-status",
        commit,
        tree,
      ]);
      const parts = splitNul(out);
      const changes: TreeChange[] = [];
      for (let i = 0; i + 1 < parts.length; i += 2) {
        changes.push({ status: parts[i] ?? "", path: parts[i + 1] ?? "" });
      }
      return changes;
    },
    async listTree(commit) {
      const out = await git(["ls-tree", "-r", "-z", "--full-tree", commit]);
      const entries = new Map<string, TreeEntry>();
      for (const { meta, path } of nulLines(out)) {
        const match = /^(\d+) (\w+) (\w+)$/.exec(meta.toString("latin1"));
        if (match?.[1] && match[3])
          entries.set(keyOfBytes(path), { mode: match[1], sha: match[3] });
      }
      return entries;
    },
    readBlob: (sha) => git(["cat-file", "blob", sha]),
  };
}
