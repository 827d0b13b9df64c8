// What git says about a repository's configuration is asked once and kept until a file git reads
// changes: edits cost no process, and the answer is never stale (judged against git itself).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { ToolInvocation } from "../../src/protocol/index.ts";
import { host, sandbox } from "./helpers.ts";

const write = (path: string): ToolInvocation => ({
  id: "c",
  name: "write_file",
  args: { path, content: "x\n" },
  turn: 1,
});

/** A PATH whose `git` logs each call to `log`, then runs the real git. */
function countingGit(folder: string): { path: string; calls: () => string[] } {
  const real = execFileSync("bash", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  const bin = join(folder, "bin");
  const log = join(folder, "git-calls.log");
  mkdirSync(bin, { recursive: true });
  writeFileSync(log, "");
  writeFileSync(
    join(bin, "git"),
    `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${real}' "$@"\n`,
  );
  chmodSync(join(bin, "git"), 0o755);
  return {
    path: `${bin}:${process.env.PATH}`,
    calls: () => readFileSync(log, "utf8").split("\n").filter(Boolean),
  };
}

test("edits in a repository ask git where its hooks are once, not once per edit", async () => {
  const box = sandbox();
  execFileSync("git", ["init", "-q", box.workspace]);
  const git = countingGit(box.root);
  const tools = host(box, { mode: "auto_edit", env: { ...process.env, PATH: git.path } });
  for (let i = 0; i < 20; i++)
    assert.deepEqual(await tools.permission(write(`notes/${i}.txt`)), { type: "allow" });
  const asked = git.calls().filter((call) => call.includes("--git-path hooks"));
  assert.equal(asked.length, 1, `git was asked ${asked.length} times: ${asked.join("; ")}`);
});

test("the kept answer follows every file git reads: the repository's config, an include edited in place, an include that did not exist yet", async () => {
  const box = sandbox();
  execFileSync("git", ["init", "-q", box.workspace]);
  const tools = host(box, { mode: "auto_edit" });
  const isHook = async (path: string) => (await tools.permission(write(path))).type === "ask";
  assert.equal(await isHook("ci/a.txt"), false);

  // An include whose target does not exist yet: git reads nothing from it, so nothing changes.
  execFileSync("git", ["-C", box.workspace, "config", "include.path", "../team.gitconfig"]);
  assert.equal(await isHook("ci/a.txt"), false);
  // The target appears (no config file of the repository itself changes): ci/ is the hooks folder now.
  writeFileSync(box.path("team.gitconfig"), "[core]\n\thooksPath = ci\n");
  assert.equal(await isHook("ci/a.txt"), true);
  // The include edited in place, same size: the hooks folder moves with it.
  writeFileSync(box.path("team.gitconfig"), "[core]\n\thooksPath = cj\n");
  assert.equal(await isHook("ci/a.txt"), false);
  assert.equal(await isHook("cj/a.txt"), true);
  // The include dropped from the repository's own config: git's default folder again.
  execFileSync("git", ["-C", box.workspace, "config", "--unset", "include.path"]);
  const truth = execFileSync("git", ["-C", box.workspace, "rev-parse", "--git-path", "hooks"], {
    encoding: "utf8",
  }).trim();
  assert.equal(truth, ".git/hooks");
  assert.equal(await isHook("cj/a.txt"), false);
});
