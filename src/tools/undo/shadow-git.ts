// The shadow repository that snapshots the workspace around commands. Its machinery (git processes,
// staging, the index reader) loads at its first use: file tools keep their own before-images, so a run
// that starts no command and undoes nothing never loads it.
import type { ShadowGit, ShadowGitOptions } from "./shadow-git-types.ts";

export * from "./shadow-git-types.ts";

/** Opens (lazily creating) the shadow repository. */
export function createShadowGit(options: ShadowGitOptions): ShadowGit {
  let opened: Promise<ShadowGit> | null = null;
  const open = () =>
    (opened ??= import("./shadow-git-repository.ts").then(({ openShadowGit }) =>
      openShadowGit(options),
    ));
  return {
    snapshot: async (message) => (await open()).snapshot(message),
    coverage: async () => (await open()).coverage(),
    currentTree: async () => (await open()).currentTree(),
    changes: async (commit, tree) => (await open()).changes(commit, tree),
    listTree: async (commit) => (await open()).listTree(commit),
    readBlob: async (sha) => (await open()).readBlob(sha),
  };
}
