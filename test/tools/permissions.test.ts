import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { PermissionCheck, ToolInvocation } from "../../src/protocol/index.ts";
import { parseCommand } from "../../src/tools/command-line/shell-commands.ts";
import type { WorkspaceToolHost } from "../../src/tools/index.ts";
import { host, sandbox } from "./helpers.ts";

const call = (name: string, args: Record<string, unknown>): ToolInvocation => ({
  id: "c",
  name,
  args,
  turn: 1,
});
const bash = (command: string): ToolInvocation => call("bash", { command });
const check = (tools: WorkspaceToolHost, invocation: ToolInvocation): Promise<PermissionCheck> =>
  tools.permission(invocation);

test("read-only tools never ask, in any mode", async () => {
  for (const mode of ["ask", "auto_edit", "approve_all"] as const) {
    const tools = host(sandbox(), { mode });
    for (const invocation of [
      call("read_file", { path: "a" }),
      call("grep", { pattern: "x" }),
      call("glob", { pattern: "*" }),
      call("list_dir", {}),
    ]) {
      assert.deepEqual(
        await check(tools, invocation),
        { type: "allow" },
        `${mode} ${invocation.name}`,
      );
    }
  }
});

test("ask mode asks for every edit and every command, with a one-line summary", async () => {
  const box = sandbox();
  writeFileSync(box.path("a.ts"), "x".repeat(900));
  const tools = host(box, { mode: "ask" });
  const overwrite = await check(
    tools,
    call("write_file", { path: "a.ts", content: "y".repeat(1234) }),
  );
  assert.equal(overwrite.type, "ask");
  assert.equal(
    overwrite.type === "ask" && overwrite.summary,
    "write_file a.ts (1,234 bytes, overwrites 900 bytes)",
  );
  // The prompt shows the change itself, and what a yes for the session would cover.
  assert.match((overwrite.type === "ask" && overwrite.preview) || "", /^-x{900}$/m);
  assert.match((overwrite.type === "ask" && overwrite.preview) || "", /^\+y{1234}$/m);
  assert.match((overwrite.type === "ask" && overwrite.scope) || "", /every write_file call/);
  const created = await check(tools, call("write_file", { path: "new.ts", content: "" }));
  assert.equal(created.type === "ask" && created.summary, "write_file new.ts (0 bytes, new file)");
  assert.equal(
    (await check(tools, call("edit_file", { path: "a.ts", old_string: "x", new_string: "y" })))
      .type,
    "ask",
  );
  assert.deepEqual(await check(tools, bash("npm test && rm -rf build")), {
    type: "ask",
    summary: "bash: npm test && rm -rf build",
    scope: "this command line, and `npm test …`, `rm -rf build` commands, for this session",
  });
});

test("auto_edit approves edits inside the workspace, asks for bash and for allowed paths outside it", async () => {
  const box = sandbox();
  const shared = join(box.root, "shared");
  mkdirSync(shared);
  const tools = host(box, { mode: "auto_edit", allowedPaths: [shared] });
  assert.deepEqual(await check(tools, call("write_file", { path: "a.ts", content: "x" })), {
    type: "allow",
  });
  assert.deepEqual(
    await check(tools, call("edit_file", { path: "a.ts", old_string: "x", new_string: "y" })),
    { type: "allow" },
  );
  assert.equal((await check(tools, bash("npm test"))).type, "ask");
  assert.equal(
    (await check(tools, call("write_file", { path: join(shared, "n.txt"), content: "x" }))).type,
    "ask",
  );
});

test("approve_all allows everything except commands matching a deny rule", async () => {
  const tools = host(sandbox(), { mode: "approve_all", rules: { deny: ["rm *"] } });
  assert.deepEqual(await check(tools, call("write_file", { path: "a.ts", content: "x" })), {
    type: "allow",
  });
  assert.deepEqual(await check(tools, bash("make && npm test")), { type: "allow" });
  const denied = await check(tools, bash("make && rm -rf /"));
  assert.equal(denied.type, "deny");
  assert.match(
    denied.type === "deny" ? denied.reason : "",
    /`rm -rf \/` matches the deny rule "rm \*"/,
  );
});

test("an allow rule for `git status` does not auto-allow `git status && rm -rf /`", async () => {
  const tools = host(sandbox(), { mode: "ask", rules: { allow: ["git status"] } });
  assert.deepEqual(await check(tools, bash("git status")), { type: "allow" });
  assert.deepEqual(await check(tools, bash("git status --short")), { type: "allow" });
  assert.equal((await check(tools, bash("git status && rm -rf /"))).type, "ask");
  assert.equal((await check(tools, bash("git status; rm -rf /"))).type, "ask");
  assert.equal((await check(tools, bash("git status | sh"))).type, "ask");
});

test("a compound command is auto-allowed only when every subcommand matches an allow rule", async () => {
  const tools = host(sandbox(), {
    mode: "auto_edit",
    rules: { allow: ["git status", "npm test", "grep *"] },
  });
  assert.deepEqual(await check(tools, bash("git status && npm test 2>&1 | grep -v warn")), {
    type: "allow",
  });
  assert.equal((await check(tools, bash("npm test && npm publish"))).type, "ask");
});

test("deny rules reach commands hidden in $(...), backticks, subshells and functions", async () => {
  const tools = host(sandbox(), { mode: "ask", rules: { allow: ["echo"], deny: ["rm *"] } });
  for (const command of [
    "echo $(rm x)",
    "echo `rm x`",
    "(cd a && rm -rf b)",
    'echo "a $(rm -f y) b"',
    "f() { rm z; }; f",
    "x=$(rm q)",
  ]) {
    assert.equal((await check(tools, bash(command))).type, "deny", command);
  }
});

test("deny wins over allow", async () => {
  const tools = host(sandbox(), { mode: "ask", rules: { allow: ["rm *"], deny: ["rm -rf *"] } });
  assert.equal((await check(tools, bash("rm -rf build"))).type, "deny");
  assert.deepEqual(await check(tools, bash("rm build/a.o")), { type: "allow" });
});

test("code run through bash -c, eval, xargs or find -exec is opaque: never auto-allowed by allow rules", async () => {
  const tools = host(sandbox(), {
    mode: "ask",
    rules: { allow: ["bash", "eval", "xargs", "find", "ls"] },
  });
  for (const command of [
    "bash -c 'rm -rf /'",
    'eval "$CMD"',
    "ls | xargs rm",
    "find . -name '*.o' -delete",
    "$TOOL --force",
  ]) {
    assert.equal((await check(tools, bash(command))).type, "ask", command);
  }
  const approveAll = host(sandbox(), { mode: "approve_all", rules: { deny: ["rm *"] } });
  assert.equal(
    (await check(approveAll, bash("bash -c 'rm -rf /'"))).type,
    "ask",
    "deny rules cannot see inside",
  );
});

test("a command that cannot be parsed asks; in approve_all it is allowed only when there are no deny rules", async () => {
  const ask = await check(
    host(sandbox(), { mode: "auto_edit", rules: { allow: ["echo"] } }),
    bash("echo 'unterminated"),
  );
  assert.equal(ask.type, "ask");
  assert.match(ask.type === "ask" ? ask.summary : "", /could not be parsed/);
  assert.deepEqual(
    await check(host(sandbox(), { mode: "approve_all" }), bash("echo 'unterminated")),
    { type: "allow" },
  );
  assert.equal(
    (
      await check(
        host(sandbox(), { mode: "approve_all", rules: { deny: ["rm *"] } }),
        bash("echo 'unterminated"),
      )
    ).type,
    "ask",
  );
});

test("session approvals: per tool for edits, per command prefix for bash, exact words for destructive commands", async () => {
  const tools = host(sandbox(), { mode: "ask" });
  tools.rememberApproval(call("write_file", { path: "a.ts", content: "x" }));
  assert.deepEqual(await check(tools, call("write_file", { path: "b.ts", content: "y" })), {
    type: "allow",
  });
  assert.equal(
    (await check(tools, call("edit_file", { path: "b.ts", old_string: "y", new_string: "z" })))
      .type,
    "ask",
  );
  await check(tools, bash("npm test -- --watch=false"));
  tools.rememberApproval(bash("npm test -- --watch=false"));
  await check(tools, bash("rm -rf build"));
  tools.rememberApproval(bash("rm -rf build"));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(await check(tools, bash("npm test")), { type: "allow" });
  assert.equal((await check(tools, bash("npm install left-pad"))).type, "ask");
  assert.deepEqual(await check(tools, bash("rm -rf build")), { type: "allow" });
  assert.equal((await check(tools, bash("rm -rf /"))).type, "ask");
});

test("calls with invalid arguments are not asked about (the dispatcher refuses them)", async () => {
  const tools = host(sandbox(), { mode: "ask" });
  assert.deepEqual(await check(tools, call("write_file", { path: "a.ts" })), { type: "allow" });
  assert.deepEqual(await check(tools, bash("")), { type: "allow" });
});

test("setMode changes what needs approval from the next call on", async () => {
  const tools = host(sandbox(), { mode: "ask" });
  assert.equal(
    (await check(tools, call("write_file", { path: "a.ts", content: "x" }))).type,
    "ask",
  );
  tools.setMode("auto_edit");
  assert.deepEqual(await check(tools, call("write_file", { path: "a.ts", content: "x" })), {
    type: "allow",
  });
});

test("the shell parser finds every simple command with its unquoted words", async () => {
  const parsed = await parseCommand(
    `FOO=1 npm test > out.txt 2>&1 && echo "$(rm -rf 'my dir')" | wc -l`,
  );
  assert.equal(parsed.type, "parsed");
  assert.deepEqual(parsed.type === "parsed" ? parsed.commands.map((c) => c.words) : [], [
    ["npm", "test"],
    ["echo", "\"$(rm -rf 'my dir')\""],
    ["rm", "-rf", "my dir"],
    ["wc", "-l"],
  ]);
  assert.equal(
    Error.stackTraceLimit,
    10,
    "loading the parser leaves the process's stack trace limit alone",
  );
});

test("arithmetic, [[ ]], declarations, computed subscripts, assignments and file redirections are never auto-allowed", async () => {
  const tools = host(sandbox(), {
    mode: "ask",
    rules: { allow: ["git status", "git diff", "echo", "ls"] },
  });
  for (const command of [
    "git status > ~/.bashrc",
    "git status >> notes.txt",
    "{ git status; } > out.txt",
    "GIT_EXTERNAL_DIFF=/tmp/evil.sh git diff",
    "PATH=/tmp/evil:$PATH; git status",
    "git status; let 'a[$(touch pwn)]=1'",
    "git status; (( a[$(touch pwn)] ))",
    "git status; [[ -v 'a[$(touch pwn)]' ]]",
    "git status; declare -a 'x=([0]=$(touch pwn))'",
    "echo hi; export X=1",
    `echo "\${a[$i]}"`,
  ]) {
    assert.equal((await check(tools, bash(command))).type, "ask", command);
  }
  for (const command of [
    "git status 2>&1",
    "git status >/dev/null 2>&1",
    "git diff < /dev/null",
    `echo "\${a[1]}"`,
  ]) {
    assert.deepEqual(await check(tools, bash(command)), { type: "allow" }, command);
  }
});

test("deny rules see through backslashes and match flags in any order, joined or split", async () => {
  const tools = host(sandbox(), {
    mode: "approve_all",
    rules: { deny: ["rm -rf", "git push --force"] },
  });
  for (const command of [
    "\\rm -rf x",
    "r\\m -rf x",
    "rm -r -f x",
    "rm -fr x",
    "rm -f x -r",
    "/bin/rm -Rrf x",
    "git push origin main --force",
  ]) {
    assert.equal((await check(tools, bash(command))).type, "deny", command);
  }
  for (const command of ["rm -f x", "rm x", "rm -- -rf", "git push --follow-tags"]) {
    assert.deepEqual(await check(tools, bash(command)), { type: "allow" }, command);
  }
});

test("--yes does not run what undo cannot repair: deletions outside the workspace, of it, of .git or ignored files, force pushes, sudo, disks", async () => {
  const box = sandbox();
  const home = join(box.root, "home");
  const tools = host(box, { mode: "approve_all", env: { HOME: home, PATH: process.env.PATH } });
  const refused: Array<[string, RegExp]> = [
    ["rm -rf ~/projects", new RegExp(`deletes ${join(home, "projects")}, outside the workspace`)],
    ["rm -rf /", /deletes \/, outside the workspace/],
    ["npm test && rm -rf ../other", /outside the workspace/],
    ["cd .. && rm -rf ws", /deletes the whole workspace/],
    ["cd /tmp && rm -rf build", /deletes \/tmp\/build, outside/],
    ["rm -rf .", /deletes the whole workspace/],
    ["rm -rf ./*", /deletes the whole workspace/],
    ["rm -rf .git", /repository's history/],
    ['rm -rf "$BUILD_DIR"', /cannot resolve/],
    ["find / -name '*.log' -delete", /deletes \/, outside/],
    ["git clean -fdx", /ignored files/],
    ["git -C sub clean -fX", /ignored files/],
    ["git push --force origin main", /history on the remote/],
    ["git push -f", /history on the remote/],
    ["git push origin +main", /history on the remote/],
    ["git push origin :old-branch", /history on the remote/],
    ["sudo apt-get install jq", /elevated privileges/],
    ["dd if=/dev/zero of=/dev/sda bs=1M", /writes to a device/],
    ["mkfs.ext4 /dev/sdb1", /formats/],
    ["mv ~/Documents/notes.md .", /moves .*notes\.md from outside the workspace/],
  ];
  for (const [command, reason] of refused) {
    const answer = await check(tools, bash(command));
    assert.equal(answer.type, "deny", command);
    assert.match(answer.type === "deny" ? answer.reason : "", reason, command);
    assert.match(answer.type === "deny" ? answer.reason : "", /tell the user/, command);
  }
  for (const command of [
    "rm -rf build dist node_modules",
    "rm -f src/*.o",
    "find . -name '*.pyc' -delete",
    "git clean -fd",
    "git push origin main",
    "git push -u origin feature",
    "cd src && rm old.ts",
    "mv a.ts b.ts",
    "mv build/out.js /tmp/out.js",
  ]) {
    assert.deepEqual(await check(tools, bash(command)), { type: "allow" }, command);
  }
});

test("a command undo cannot repair asks with a warning in ask mode, and runs on --yes only with a rule the user wrote", async () => {
  const box = sandbox();
  const asking = host(box, { mode: "ask", rules: { allow: ["rm *"] } });
  const asked = await check(asking, bash("rm -rf /var/tmp/cache"));
  assert.equal(asked.type, "ask");
  assert.match(
    asked.type === "ask" ? asked.summary : "",
    /⚠ `rm -rf \/var\/tmp\/cache` deletes \/var\/tmp\/cache, outside the workspace/,
  );
  const ruled = host(box, { mode: "approve_all", rules: { allow: ["git push --force"] } });
  assert.deepEqual(await check(ruled, bash("git push --force origin main")), { type: "allow" });
  const allowedPath = host(box, { mode: "approve_all", allowedPaths: [join(box.root, "shared")] });
  assert.deepEqual(await check(allowedPath, bash(`rm -rf ${join(box.root, "shared", "tmp")}`)), {
    type: "allow",
  });
});

// The README's example rules.
const README_RULES = { allow: ["npm test", "git status", "git diff"], deny: ["rm -rf"] };
const write = (path: string): ToolInvocation => call("write_file", { path, content: "x\n" });
const edit = (path: string): ToolInvocation =>
  call("edit_file", { path, old_string: "a", new_string: "b" });

test("auto_edit asks, with the reason, before changing what an allowed command runs", async () => {
  const box = sandbox();
  mkdirSync(box.path("sub"));
  const tools = host(box, { mode: "auto_edit", rules: README_RULES });
  for (const [invocation, why] of [
    [
      edit("package.json"),
      /⚠ package\.json defines what `npm test` runs, which your allow rules run without asking/,
    ],
    [write("sub/package.json"), /`npm test`/],
    [write(".npmrc"), /`npm test`/],
    [write("node_modules/.bin/jest"), /`npm test`/],
    [write(".gitattributes"), /`git status`/],
    [write(".gitmodules"), /`git status`/],
  ] as const) {
    const answer = await check(tools, invocation);
    assert.equal(answer.type, "ask", `${invocation.args.path}`);
    assert.match(answer.type === "ask" ? answer.summary : "", why);
  }
  // Ordinary source files, and files no trusted command reads, are still approved.
  for (const path of ["src/app.ts", "test/app.test.ts", "Makefile", "Cargo.toml", "README.md"])
    assert.deepEqual(await check(tools, write(path)), { type: "allow" }, path);
});

test("without allow rules, auto_edit approves package.json; a rule for make or a script's path makes its files ask", async () => {
  const box = sandbox();
  assert.deepEqual(await check(host(box, { mode: "auto_edit" }), write("package.json")), {
    type: "allow",
  });
  const tools = host(box, {
    mode: "auto_edit",
    rules: { allow: ["make build", "bash scripts/check.sh", "./run-tests.sh", "pytest"] },
  });
  for (const path of [
    "Makefile",
    "lib/rules.mk",
    "scripts/check.sh",
    "run-tests.sh",
    "conftest.py",
    "tests/conftest.py",
    "pyproject.toml",
  ])
    assert.equal((await check(tools, write(path))).type, "ask", path);
  assert.deepEqual(await check(tools, write("scripts/other.sh")), { type: "allow" });
});

test("edits inside .git, to git hooks and to shell or git startup files always ask; on --yes those inside .git are refused", async () => {
  const box = sandbox();
  execFileSync("git", ["init", "-q", box.workspace]);
  execFileSync("git", ["-C", box.workspace, "config", "core.hooksPath", "tools/hooks"]);
  symlinkSync(".git/config", box.path("cfg"));
  const auto = host(box, { mode: "auto_edit" });
  for (const path of [
    ".git/config",
    ".git/hooks/pre-commit",
    "cfg",
    "sub/../.git/config",
    ".husky/pre-commit",
    "tools/hooks/pre-push",
    "dotfiles/.bashrc",
    "home/.gitconfig",
  ])
    assert.equal((await check(auto, write(path))).type, "ask", path);
  const yes = host(box, { mode: "approve_all" });
  const refused = await check(yes, edit(".git/config"));
  assert.equal(refused.type, "deny");
  assert.match(
    refused.type === "deny" ? refused.reason : "",
    /\.git\/config is inside \.git.*runs whenever anyone runs git.*not make such edits on --yes/,
  );
  assert.equal((await check(yes, write(".git/hooks/post-checkout"))).type, "deny");
  assert.deepEqual(await check(yes, write(".gitignore")), { type: "allow" });
  assert.deepEqual(await check(yes, write("package.json")), { type: "allow" });
});

test("the hooks folder is the one git uses: a core.hooksPath from an included config file counts too", async () => {
  const box = sandbox();
  execFileSync("git", ["init", "-q", box.workspace]);
  writeFileSync(box.path(".git/team.config"), '[core]\n\thooksPath = "ci/git hooks"\n');
  execFileSync("git", ["-C", box.workspace, "config", "include.path", "team.config"]);
  const auto = host(box, { mode: "auto_edit" });
  const answer = await check(auto, write("ci/git hooks/pre-commit"));
  assert.equal(answer.type, "ask");
  assert.match(answer.type === "ask" ? answer.summary : "", /is a git hook: git runs it/);
  assert.deepEqual(await check(auto, write("ci/notes.txt")), { type: "allow" });
  // An included file in the workspace moves the hooks folder: the next edit is judged by the new one.
  writeFileSync(box.path("team.gitconfig"), "[core]\n\thooksPath = ci\n");
  execFileSync("git", ["-C", box.workspace, "config", "include.path", "../team.gitconfig"]);
  assert.equal((await check(auto, write("ci/notes.txt"))).type, "ask");
});

test("an edit approved for the session does not approve changing what an approved command runs", async () => {
  const box = sandbox();
  const tools = host(box, { mode: "ask" });
  tools.rememberApproval(write("a.txt"));
  tools.rememberApproval(bash("make build"));
  // Checking the command waits on the same parse the approval is recorded from.
  assert.deepEqual(await check(tools, bash("make build")), { type: "allow" });
  assert.deepEqual(await check(tools, write("b.txt")), { type: "allow" });
  const answer = await check(tools, edit("Makefile"));
  assert.equal(answer.type, "ask");
  assert.match(
    answer.type === "ask" ? answer.summary : "",
    /Makefile defines what `make build` runs, which you approved for this session/,
  );
  assert.equal((await check(tools, write(".git/config"))).type, "ask");
});

test("an allow rule does not run its command with options that load code named on the command line", async () => {
  const box = sandbox();
  const tools = host(box, {
    mode: "auto_edit",
    rules: { allow: ["npm test", "make test", "pytest", "git status", "cargo test"] },
  });
  for (const command of [
    "npm test --script-shell=./x.sh",
    "npm test --node-options=--require=./x.js",
    "make test -f x.mk",
    "make test -fx.mk",
    "make test SHELL=./x.sh",
    "pytest -p evil_plugin",
    "pytest -o addopts=-pevil",
    "git status --output=package.json",
    "cargo test --config target.x86_64-unknown-linux-gnu.runner='./x.sh'",
  ]) {
    const answer = await check(tools, bash(command));
    assert.equal(answer.type, "ask", command);
    assert.match(answer.type === "ask" ? answer.summary : "", /⚠ `.*` (makes|overrides)/, command);
  }
  for (const command of [
    "npm test",
    "npm test -- --watch",
    "make test",
    "pytest -k slow -x tests/",
    "git status --short",
    "cargo test --release",
  ])
    assert.deepEqual(await check(tools, bash(command)), { type: "allow" }, command);
});

test("a tool an allow rule starts through a runner, a push's CI files and a compose file are guarded like package.json", async () => {
  const box = sandbox();
  const tools = host(box, {
    mode: "auto_edit",
    rules: { allow: ["npx jest", "python -m pytest", "git push", "docker compose up"] },
  });
  for (const path of [
    "jest.config.js",
    "conftest.py",
    ".github/workflows/ci.yml",
    ".gitlab-ci.yml",
    "compose.yaml",
    "Dockerfile",
  ])
    assert.equal((await check(tools, write(path))).type, "ask", path);
  // `git status` alone does not run CI: its workflows stay ordinary files.
  const status = host(box, { mode: "auto_edit", rules: { allow: ["git status"] } });
  assert.deepEqual(await check(status, write(".github/workflows/ci.yml")), { type: "allow" });
});

test("--yes refuses to change what the undo snapshot does not hold, and says why", async () => {
  const box = sandbox();
  execFileSync("git", ["init", "-q", box.workspace]);
  writeFileSync(box.path(".gitignore"), ".env\nnode_modules/\n");
  writeFileSync(box.path(".env"), "API_KEY=only-copy\n");
  mkdirSync(box.path("node_modules/pkg"), { recursive: true });
  writeFileSync(box.path("node_modules/pkg/index.js"), "x\n");
  writeFileSync(box.path("big.bin"), "B".repeat(3000));
  mkdirSync(box.path("vendor/lib"), { recursive: true });
  execFileSync("git", ["init", "-q", box.path("vendor/lib")]);
  writeFileSync(box.path("vendor/lib/a.c"), "int a;\n");
  writeFileSync(box.path("src.ts"), "ok\n");
  const tools = host(box, { mode: "approve_all", snapshotLimits: { maxFileBytes: 1000 } });
  const refused: Array<[string, RegExp]> = [
    ["rm .env", /\.env \(ignored by \.gitignore\).*undo could not restore it/],
    ["echo KEY=x > .env", /\.env \(ignored/],
    ["mv .env env.bak", /\.env \(ignored/],
    ["cp src.ts .env", /\.env \(ignored/],
    ["truncate -s 0 big.bin", /big\.bin \(over the snapshot size limit\)/],
    ["rm -rf vendor/lib", /vendor\/lib \(a nested repository\)/],
    ["rm -rf node_modules", /node_modules \(ignored/],
    ["rm -rf .g*", /\.git|repository's history/],
    ["find . -delete", /repository's history \(\.git\)/],
    ["find . -name '*.js' -delete", /node_modules \(ignored/],
    ["git stash clear", /stashed changes/],
    ["git stash drop", /stashed changes/],
    ["git reflog expire --expire=now --all", /reflog/],
    ["git gc --prune=now", /prunes/],
    ["git update-ref -d refs/heads/main", /references/],
    ["git branch -D feature", /force-deletes a branch/],
    ["git config remote.origin.push +refs/heads/*:refs/heads/*", /forced pushes/],
    ["git -c remote.origin.push=+main push", /history on the remote/],
    ["git config set --append remote.origin.push +main", /forced pushes/],
  ];
  for (const [command, reason] of refused) {
    const answer = await check(tools, bash(command));
    assert.equal(answer.type, "deny", command);
    assert.match(answer.type === "deny" ? answer.reason : "", reason, command);
    assert.match(answer.type === "deny" ? answer.reason : "", /tell the user/, command);
  }
  for (const command of [
    "rm src.ts",
    "echo x > new.txt",
    "find . -name '*.pyc' -delete",
    "git stash",
    "git branch -d merged",
    "cat .env",
    "git status",
  ]) {
    assert.deepEqual(await check(tools, bash(command)), { type: "allow" }, command);
  }
});

test("--yes runs no changing command when the workspace cannot be snapshotted, and the model is told why", async () => {
  const box = sandbox();
  for (let i = 0; i < 6; i += 1) writeFileSync(box.path(`f${i}.txt`), `${i}\n`);
  const tools = host(box, { mode: "approve_all", snapshotLimits: { maxFiles: 5 } });
  const answer = await check(tools, bash("echo changed > f1.txt"));
  assert.equal(answer.type, "deny");
  assert.match(
    answer.type === "deny" ? answer.reason : "",
    /no snapshot of the workspace can be taken \(the workspace has more than 5 files\)/,
  );
  const look = bash("ls -la");
  assert.deepEqual(await check(tools, look), { type: "allow" });
  // A command that only looks still runs: it needs no snapshot.
  const looked = await tools.execute(look, new AbortController().signal);
  assert.equal(looked.isError, false, looked.content);
  assert.match(looked.content, /f5\.txt/);
});

test("--yes does not run a plain git push when the repository's config forces every push", async () => {
  const box = sandbox();
  execFileSync("git", ["init", "-q", box.workspace]);
  const tools = host(box, { mode: "approve_all" });
  assert.deepEqual(await check(tools, bash("git push origin main")), { type: "allow" });
  execFileSync("git", [
    "-C",
    box.workspace,
    "config",
    "remote.origin.push",
    "+refs/heads/*:refs/heads/*",
  ]);
  const answer = await check(tools, bash("git push origin main"));
  assert.equal(answer.type, "deny");
  assert.match(answer.type === "deny" ? answer.reason : "", /history on the remote/);
});

test("a command undo could not repair asks every time, even after a yes for the session", async () => {
  const tools = host(sandbox(), { mode: "ask" });
  const hazard = bash("rm -rf ../elsewhere");
  assert.equal((await check(tools, hazard)).type, "ask");
  tools.rememberApproval(hazard);
  assert.equal((await check(tools, hazard)).type, "ask");
});
