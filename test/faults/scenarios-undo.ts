// What `--yes` may run is what undo can repair: a command that would change what the undo snapshot
// does not hold (ignored files, files over its size limit, nested repositories, git's own history)
// is not run, and the model is told why.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { exitCode, type FaultScenario, fileIs, told } from "./scenario.ts";

const wire = "openai";

const gitInit = (dir: string): void => {
  spawnSync("git", ["init", "-q"], { cwd: dir });
};

const runs = (command: string) => [
  openaiToolCall({ name: "bash", args: { command } }),
  openaiText("ok"),
];

export const undoScenarios: FaultScenario[] = [
  {
    name: "--yes and `rm .env`, an ignored file no snapshot holds",
    wire,
    expect: "not run; .env keeps its bytes; the model is told undo could not restore it",
    files: { ".gitignore": ".env\n", ".env": "API_TOKEN=only-copy\n" },
    scripts: runs("rm .env"),
    checks: [
      fileIs(".env", "API_TOKEN=only-copy\n"),
      told(/\.env \(ignored by \.gitignore\).*undo could not restore it/),
      exitCode(4),
    ],
  },
  {
    name: "--yes and a redirection that overwrites a file over the snapshot size limit",
    wire,
    expect: "not run; the big file keeps its bytes; the model is told",
    setup: (box) => {
      writeFileSync(join(box.workspace, "data.bin"), Buffer.alloc(6 * 2 ** 20, 7));
      writeFileSync(join(box.workspace, "small.txt"), "keep\n");
    },
    scripts: runs("echo oops > data.bin"),
    checks: [told(/data\.bin \(over the snapshot size limit\)/), exitCode(4)],
  },
  {
    name: "--yes and deleting a nested repository",
    wire,
    expect: "not run; the nested repository's files stay; the model is told",
    setup: (box) => {
      mkdirSync(join(box.workspace, "vendor", "lib"), { recursive: true });
      gitInit(join(box.workspace, "vendor", "lib"));
      writeFileSync(join(box.workspace, "vendor", "lib", "a.c"), "int a;\n");
    },
    scripts: runs("rm -rf vendor"),
    checks: [
      fileIs("vendor/lib/a.c", "int a;\n"),
      told(/vendor\/lib \(a nested repository\)/),
      exitCode(4),
    ],
  },
  {
    name: "--yes and `find . -delete`, which reaches .git",
    wire,
    expect: "not run; the workspace and its history stay; the model is told",
    files: { "a.txt": "a\n" },
    setup: (box) => gitInit(box.workspace),
    scripts: runs("find . -delete"),
    checks: [fileIs("a.txt", "a\n"), told(/repository's history \(\.git\)/), exitCode(4)],
  },
  {
    name: "--yes and `rm -rf .g*`, which reaches .git through a glob",
    wire,
    expect: "not run; the model is told",
    files: { ".gitignore": "x\n" },
    setup: (box) => gitInit(box.workspace),
    scripts: runs("rm -rf .g*"),
    checks: [fileIs(".gitignore", "x\n"), told(/repository's history \(\.git\)/), exitCode(4)],
  },
  {
    name: "--yes and `git stash clear`",
    wire,
    expect: "not run; the model is told stashed changes are beyond undo",
    setup: (box) => gitInit(box.workspace),
    scripts: runs("git stash clear"),
    checks: [told(/deletes stashed changes/), exitCode(4)],
  },
  {
    name: "--yes and a forced push written as a config refspec",
    wire,
    expect: "not run; the model is told",
    setup: (box) => gitInit(box.workspace),
    scripts: runs("git config remote.origin.push '+refs/heads/*:refs/heads/*'"),
    checks: [told(/forced pushes/), exitCode(4)],
  },
];
