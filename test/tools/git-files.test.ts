// The files git reads for a workspace, found by reading them: config entries as git names them,
// every git folder (submodules at any depth, worktrees), includes, and where hooks run from.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  configFilesOf,
  gitDirsOf,
  hooksDirOf,
  parseGitConfig,
  readConfig,
} from "../../src/tools/sandbox/git-files.ts";
import { sandbox } from "./helpers.ts";

test("config entries: sections, subsections with their case, old-style names, quotes, comments, continued lines", () => {
  const entries = parseGitConfig(
    [
      "[core]",
      "\tfsMonitor = touch x ; a comment",
      '[filter "Evil"] clean = "run \\"it\\"" # trailing',
      "[diff.tool]",
      "\ttextconv = a \\",
      "b",
      "[alias]",
      "\tbare",
    ].join("\n"),
  );
  assert.deepEqual(
    entries.map((e) => [e.key, e.value, e.lines]),
    [
      ["core.fsmonitor", "touch x", [1, 1]],
      ["filter.Evil.clean", 'run "it"', [2, 2]],
      ["diff.tool.textconv", "a b", [4, 5]],
      ["alias.bare", "true", [7, 7]],
    ],
  );
});

test("every git folder: the repository's, nested submodules' (a name with a slash) and worktrees'; includes followed", () => {
  const box = sandbox();
  const git = box.path(".git");
  for (const dir of ["modules/lib", "modules/deps/a", "modules/lib/modules/inner", "worktrees/w"]) {
    mkdirSync(join(git, dir), { recursive: true });
    writeFileSync(join(git, dir, "HEAD"), "ref: refs/heads/main\n");
  }
  writeFileSync(join(git, "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(git, "worktrees/w/commondir"), "../..\n");
  writeFileSync(join(git, "config"), '[includeIf "gitdir:/nowhere/"]\n\tpath = ../shared.cfg\n');
  writeFileSync(box.path("shared.cfg"), "[core]\n\thooksPath = .husky/_\n");
  const dirs = gitDirsOf(box.workspace).map((dir) => dir.slice(box.workspace.length + 1));
  assert.deepEqual(
    dirs.sort(),
    [
      ".git",
      ".git/modules/deps/a",
      ".git/modules/lib",
      ".git/modules/lib/modules/inner",
      ".git/worktrees/w",
    ].sort(),
  );
  const files = configFilesOf(git, undefined, undefined);
  assert.ok(files.includes(box.path("shared.cfg")), files.join(", "));
  const configs = files.map((file) => ({ file, entries: readConfig(file) }));
  assert.equal(hooksDirOf(git, box.workspace, configs, undefined), box.path(".husky/_"));
});
