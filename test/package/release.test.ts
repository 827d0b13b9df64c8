// `npm run release` publishes only a tested tarball of a tagged, committed, changelogged version: each
// missing precondition stops it, before anything is packed, with what to do.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { scratchDir } from "../support/scratch-dir.ts";

const checkout = resolve(import.meta.dirname, "..", "..");
// Git as a fresh install has it: the machine's own settings (signed commits, hooks) play no part.
const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };

function repository(changelog: string): string {
  const dir = scratchDir("nex-release-");
  mkdirSync(join(dir, "scripts"));
  for (const file of ["release.ts", "exact-node.ts"])
    cpSync(join(checkout, "scripts", file), join(dir, "scripts", file));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "x", version: "1.2.3" }));
  writeFileSync(join(dir, "CHANGELOG.md"), changelog);
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: dir, env });
  git("init", "-q");
  git("add", ".");
  git("commit", "-qm", "release");
  return dir;
}

function release(dir: string): { code: number | null; stderr: string } {
  const result = spawnSync(process.execPath, [join(dir, "scripts", "release.ts")], {
    cwd: dir,
    env,
    encoding: "utf8",
  });
  return { code: result.status, stderr: result.stderr };
}

test("the release stops at an untagged commit, a dirty tree or a version the changelog does not name", () => {
  const dir = repository("# Changelog\n\n## 1.2.3\n\n- Things.\n");
  try {
    const untagged = release(dir);
    assert.equal(untagged.code, 1);
    assert.match(untagged.stderr, /no tag v1\.2\.3: tag the release commit first/);

    execFileSync("git", ["tag", "v1.2.3"], { cwd: dir, env });
    writeFileSync(join(dir, "stray.txt"), "uncommitted");
    const dirty = release(dir);
    assert.equal(dirty.code, 1);
    assert.match(dirty.stderr, /the working tree has changes/);
    rmSync(join(dir, "stray.txt"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const unnamed = repository("# Changelog\n\n## 1.2.2\n");
  try {
    execFileSync("git", ["tag", "v1.2.3"], { cwd: unnamed, env });
    const result = release(unnamed);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /CHANGELOG\.md has no "## 1\.2\.3" section/);
  } finally {
    rmSync(unnamed, { recursive: true, force: true });
  }
});
