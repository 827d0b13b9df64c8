// A sandboxed command cannot leave anything that git runs later, outside the sandbox, in any file
// git reads for the workspace: a submodule's config and hooks, husky's hooks (`core.hooksPath`) and
// the scripts they run, a worktree's config, a new submodule folder. Through the real `nex run --yes`;
// afterwards the user's own `git status` and `git commit` (in the repository and in the submodule)
// run nothing the command planted.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { toolResults } from "../faults/scenario.ts";
import { sandboxMissing } from "../support/bwrap.ts";
import { makeSandbox, runNex } from "../support/cli.ts";
import {
  openaiText,
  openaiToolCall,
  type Script,
  startStubEndpoint,
} from "../support/stub-endpoint.ts";

const skip = sandboxMissing() ?? false;
const bash = (command: string): Script => openaiToolCall({ name: "bash", args: { command } });
const GIT_ENV = {
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.com",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.com",
};

function git(cwd: string, env: Record<string, string>, ...args: string[]) {
  const result = spawnSync("git", ["-c", "protocol.file.allow=always", ...args], {
    cwd,
    env: { ...env, ...GIT_ENV },
    encoding: "utf8",
  });
  assert.equal(result.status, 0, `git ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}

/** A repository with a submodule and husky's layout (core.hooksPath = .husky/_). */
function hostileLayout(workspace: string, env: Record<string, string>, marker: string) {
  const library = join(workspace, "..", "library");
  mkdirSync(library);
  git(library, env, "init", "-q");
  writeFileSync(join(library, "lib.txt"), "lib\n");
  git(library, env, "add", ".");
  git(library, env, "commit", "-qm", "lib");
  git(workspace, env, "init", "-q");
  git(workspace, env, "submodule", "add", "-q", library, "sub");
  mkdirSync(join(workspace, ".husky", "_"), { recursive: true });
  // husky's hook runs the project's script beside it.
  writeFileSync(
    join(workspace, ".husky", "_", "pre-commit"),
    '#!/bin/sh\nsh "$(dirname "$0")/../pre-commit"\n',
  );
  chmodSync(join(workspace, ".husky", "_", "pre-commit"), 0o755);
  writeFileSync(join(workspace, ".husky", "pre-commit"), "true\n");
  git(workspace, env, "config", "core.hooksPath", ".husky/_");
  git(workspace, env, "add", ".");
  git(workspace, env, "commit", "-qm", "start");
  return { pwned: join(workspace, "..", marker) };
}

test("a sandboxed command plants nothing git runs later: submodule config and hooks, husky's scripts, a worktree's and a new submodule's config", {
  skip,
  timeout: 180_000,
}, async () => {
  const box = makeSandbox({ visible: true });
  const marker = `pwned-${process.pid}`;
  const { pwned } = hostileLayout(box.workspace, box.env, marker);
  const plant = `touch ${pwned}`;
  // A Python program as one shell word.
  const py = (code: string) => `python3 -c '${code.replaceAll("'", `'"'"'`)}'`;
  const stub = await startStubEndpoint({
    scripts: [
      // The submodule's own config and hooks, where `git -C sub status` reads them, and husky's.
      // (Written from Python: nex's own guard refuses a plain redirection into .git on --yes.)
      bash(
        `git config -f .git/modules/sub/config core.fsmonitor '${plant}'; ` +
          py(
            "import os\n" +
              "def put(path, text, mode=None):\n" +
              "    try:\n" +
              "        open(path, 'a').write(text)\n" +
              "        if mode: os.chmod(path, mode)\n" +
              "    except OSError as e: print(e)\n" +
              `put('.git/modules/sub/hooks/pre-commit', '#!/bin/sh\\n${plant}\\n', 0o755)\n` +
              `put('.husky/pre-commit', '${plant}\\n')\n` +
              `put('.husky/_/pre-commit', '${plant}\\n')\n`,
          ),
      ),
      // A worktree's folder and a new submodule's folder, made whole by the command.
      bash(
        py(
          "import os\n" +
            "os.makedirs('.git/worktrees/w'); os.makedirs('.git/modules/new/hooks')\n" +
            "open('.git/worktrees/w/HEAD', 'w').write('ref: refs/heads/main\\n')\n" +
            "open('.git/worktrees/w/commondir', 'w').write('../..\\n')\n" +
            `open('.git/worktrees/w/config.worktree', 'w').write('[core]\\n\\tfsmonitor = ${plant}\\n')\n` +
            "open('.git/modules/new/HEAD', 'w').write('ref: refs/heads/main\\n')\n" +
            `open('.git/modules/new/config', 'w').write('[core]\\n\\tbare = false\\n[filter \\"x\\"]\\n\\tclean = ${plant}\\n[include]\\n\\tpath = ../../../evil.cfg\\n')\n` +
            `open('.git/modules/new/hooks/post-checkout', 'w').write('#!/bin/sh\\n${plant}\\n')\n` +
            "os.chmod('.git/modules/new/hooks/post-checkout', 0o755)\n",
        ),
      ),
      openaiText("done"),
    ],
  });
  const result = await runNex(
    ["run", "--yes", "--model", "stub-model", "--base-url", `${stub.url}/v1`, "go"],
    { cwd: box.workspace, env: box.env },
  );
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const results = toolResults(stub.requestsTo("/v1/chat/completions").at(-1));
  // Held read-only: the first command could change none of them.
  assert.match(results[0] ?? "", /Read-only file system/);
  assert.equal(readFileSync(join(box.workspace, ".husky", "pre-commit"), "utf8"), "true\n");
  // Made by the command: disarmed, and the model told which.
  const told = results[1] ?? "";
  assert.match(told, /changed what git runs/);
  assert.match(told, /core\.fsmonitor in \.git\/worktrees\/w\/config\.worktree \(removed\)/);
  assert.match(told, /filter\.x\.clean in \.git\/modules\/new\/config \(removed\)/);
  assert.match(told, /include\.path in \.git\/modules\/new\/config \(removed\)/);
  assert.match(told, /\.git\/modules\/new\/hooks\/post-checkout \(execute bit removed\)/);
  assert.equal(
    statSync(join(box.workspace, ".git/modules/new/hooks/post-checkout")).mode & 0o111,
    0,
  );
  assert.match(
    readFileSync(join(box.workspace, ".git/worktrees/w/config.worktree"), "utf8"),
    /# disarmed by nex/,
  );
  // The user's own git, unconfined, afterwards: nothing planted runs.
  git(box.workspace, box.env, "status");
  git(join(box.workspace, "sub"), box.env, "status");
  writeFileSync(join(box.workspace, "a.txt"), "a\n");
  git(box.workspace, box.env, "add", "a.txt");
  git(box.workspace, box.env, "commit", "-qm", "after");
  writeFileSync(join(box.workspace, "sub", "b.txt"), "b\n");
  git(join(box.workspace, "sub"), box.env, "add", "b.txt");
  git(join(box.workspace, "sub"), box.env, "commit", "-qm", "after");
  assert.equal(existsSync(pwned), false, "something the command planted ran");
});
