// The OS sandbox: the policy it builds, the bubblewrap and Seatbelt texts, and real commands under it.
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { sandboxState } from "../../src/tools/sandbox/availability.ts";
import { sandboxNotes } from "../../src/tools/sandbox/blocked.ts";
import { buildPolicy } from "../../src/tools/sandbox/build-policy.ts";
import { bwrapArgs } from "../../src/tools/sandbox/bwrap.ts";
import type { SandboxPolicy } from "../../src/tools/sandbox/policy.ts";
import { seatbeltProfile } from "../../src/tools/sandbox/seatbelt.ts";
import { sandboxMissing } from "../support/bwrap.ts";
import { host, run, sandbox } from "./helpers.ts";

const policy: SandboxPolicy = {
  mode: "workspace-write",
  workspace: "/home/u/project",
  network: false,
  tmpDirs: ["/tmp"],
  writable: ["/home/u/.npm"],
  hiddenDirs: ["/home/u/.ssh"],
  hiddenFiles: ["/home/u/.env"],
  readOnly: ["/home/u/project/.git/hooks"],
  runDir: "/run",
  resolverPaths: ["/run/systemd/resolve"],
  maxProcesses: 4096,
  tmpSizeBytes: 512 * 1024 * 1024,
};

describe("bubblewrap command line", () => {
  test("the filesystem is read-only first, then the workspace writable, then secrets hidden and hooks held", () => {
    const args = bwrapArgs(policy, "make test", "/home/u/project", false);
    const at = (flag: string, value: string) =>
      args.findIndex((arg, i) => arg === flag && args[i + 1] === value);
    assert.equal(at("--ro-bind", "/"), 0);
    assert.ok(at("--tmpfs", "/tmp") > 0);
    assert.ok(at("--bind", "/home/u/project") > at("--tmpfs", "/tmp"));
    assert.ok(at("--bind-try", "/home/u/.npm") > 0);
    assert.ok(at("--tmpfs", "/home/u/.ssh") > at("--bind", "/home/u/project"));
    assert.ok(at("--ro-bind-try", "/dev/null") > 0, "a hidden file reads as empty");
    assert.ok(at("--ro-bind-try", "/home/u/project/.git/hooks") > at("--tmpfs", "/home/u/.ssh"));
    for (const flag of ["--unshare-pid", "--unshare-net", "--die-with-parent", "--new-session"])
      assert.ok(args.includes(flag), flag);
    assert.ok(!args.includes("--cap-drop"), "a non-root user has no capabilities to drop");
    assert.ok(at("--tmpfs", "/run") > 0, "daemon sockets under /run are out of reach");
    for (const dir of ["/tmp", "/run", "/dev/shm"])
      assert.equal(args[at("--tmpfs", dir) - 1], String(512 * 1024 * 1024), `${dir} is sized`);
    assert.equal(at("--ro-bind-try", "/run/systemd/resolve"), -1, "no network, no resolver");
  });

  test("the command reaches bash as one argument, untouched", () => {
    const command = `echo "$HOME" 'it''s' \`date\` $(id) ; exit 3`;
    const args = bwrapArgs(policy, command, "/home/u/project", false);
    assert.equal(args.at(-1), command);
    assert.deepEqual(args.slice(-6, -3), ["--", "bash", "-c"]);
  });

  test("network allowed: no network namespace; root: every capability dropped but file access", () => {
    const args = bwrapArgs({ ...policy, network: true }, "true", "/home/u/project", true);
    assert.ok(!args.includes("--unshare-net"));
    assert.ok(args.join(" ").includes("--ro-bind-try /run/systemd/resolve /run/systemd/resolve"));
    assert.ok(args.includes("--cap-drop"));
    assert.ok(!args.includes("CAP_SYS_ADMIN"));
    assert.ok(args.includes("CAP_DAC_OVERRIDE"));
  });

  test("read-only mode binds the workspace read-only and nothing writable", () => {
    const args = bwrapArgs({ ...policy, mode: "read-only" }, "true", "/home/u/project", false);
    assert.ok(!args.includes("--bind"));
    assert.ok(!args.includes("--bind-try"));
    assert.ok(args.includes("--ro-bind"));
  });
});

describe("Seatbelt profile (macOS, experimental)", () => {
  test("writes outside the workspace and temp space are denied, secrets unreadable, IP network off", () => {
    const text = seatbeltProfile(policy, "/private/var/folders/xy/T");
    assert.match(text, /^\(version 1\)\n\(allow default\)\n/);
    assert.match(
      text,
      /\(deny file-write\* \(require-all .*\(require-not \(subpath "\/home\/u\/project"\)\).*\(require-not \(subpath "\/private\/var\/folders\/xy\/T"\)\)/,
    );
    assert.match(
      text,
      /\(deny file-read\* \(subpath "\/home\/u\/\.ssh"\) \(literal "\/home\/u\/\.env"\)\)/,
    );
    assert.match(text, /\(deny file-write\* \(subpath "\/home\/u\/project\/\.git\/hooks"\)\)/);
    assert.match(text, /\(deny network-outbound \(remote ip\)\)/);
    assert.match(
      text,
      /\(deny network-outbound \(remote unix-socket \(subpath "\/private\/var\/run"\)\)\)/,
    );
  });

  test("network allowed leaves the network alone; quotes in paths are escaped", () => {
    const text = seatbeltProfile(
      { ...policy, network: true, workspace: '/Users/a "b"/p\\q' },
      "/tmp",
    );
    assert.doesNotMatch(text, /remote ip/);
    assert.ok(text.includes('(subpath "/Users/a \\"b\\"/p\\\\q")'));
  });

  test("read-only mode makes the workspace unwritable", () => {
    const text = seatbeltProfile({ ...policy, mode: "read-only" }, "/tmp");
    assert.doesNotMatch(text, /require-not \(subpath "\/home\/u\/project"\)/);
  });
});

describe("the policy for a workspace", () => {
  test("existing secrets are hidden, .env files above the workspace too, the project's own .env is not", () => {
    const box = sandbox();
    const home = join(box.root, "home");
    mkdirSync(join(home, ".ssh"), { recursive: true });
    writeFileSync(join(home, ".netrc"), "machine x password y\n");
    writeFileSync(join(box.root, ".env.local"), "TOKEN=x\n");
    writeFileSync(box.path(".env"), "PROJECT=1\n");
    mkdirSync(box.path(".nex"));
    const built = buildPolicy(
      box.workspace,
      {
        mode: "workspace-write",
        network: false,
        privatePaths: [box.path(".nex")],
        writable: ["~/.cache-missing"],
      },
      home,
    );
    assert.deepEqual(built.hiddenDirs.sort(), [join(home, ".ssh"), box.path(".nex")].sort());
    assert.ok(built.hiddenFiles.includes(join(home, ".netrc")));
    assert.ok(built.hiddenFiles.includes(join(box.root, ".env.local")));
    assert.ok(!built.hiddenFiles.includes(box.path(".env")));
    assert.deepEqual(built.writable, [], "a missing writable path is left out");
    assert.ok(!built.hiddenDirs.includes(join(home, ".aws")), "missing paths are left out");
  });

  test("a hidden path that contains the workspace is not hidden (it would hide the work)", () => {
    const box = sandbox();
    const built = buildPolicy(
      box.workspace,
      { mode: "workspace-write", network: false, denyRead: [box.root] },
      undefined,
    );
    assert.deepEqual(built.hiddenDirs, []);
  });

  test("a repository's hooks and config are held read-only; a missing hooks folder is made first", () => {
    const box = sandbox();
    mkdirSync(box.path(".git"));
    writeFileSync(box.path(".git/config"), "[core]\n");
    const built = buildPolicy(
      box.workspace,
      { mode: "workspace-write", network: false },
      undefined,
    );
    assert.deepEqual(built.readOnly.sort(), [box.path(".git/config"), box.path(".git/hooks")]);
  });

  test("a submodule's config and hooks, and core.hooksPath with husky's scripts, are held read-only too", () => {
    const box = sandbox();
    mkdirSync(box.path(".git/modules/lib/hooks"), { recursive: true });
    writeFileSync(box.path(".git/HEAD"), "ref: refs/heads/main\n");
    writeFileSync(box.path(".git/modules/lib/HEAD"), "ref: refs/heads/main\n");
    writeFileSync(box.path(".git/modules/lib/config"), "[core]\n\tworktree = ../../../lib\n");
    writeFileSync(box.path(".git/config"), "[core]\n\thooksPath = .husky/_\n");
    mkdirSync(box.path(".husky/_"), { recursive: true });
    const built = buildPolicy(
      box.workspace,
      { mode: "workspace-write", network: false },
      undefined,
    );
    for (const path of [
      ".git/config",
      ".git/modules/lib/config",
      ".git/modules/lib/hooks",
      ".husky/_",
      ".husky",
    ])
      assert.ok(built.readOnly.includes(box.path(path)), `${path}: ${built.readOnly.join(", ")}`);
  });
});

describe("whether the sandbox can run", () => {
  test("no bwrap on PATH: unavailable, with the package to install and the opt-out", () => {
    const state = sandboxState({ platform: "linux", path: "/nonexistent", uid: 1000 });
    assert.equal(state.type, "unavailable");
    assert.match(
      state.type === "unavailable" ? state.fix : "",
      /apt-get install bubblewrap.*--sandbox off/,
    );
  });

  test("an unsupported platform is unavailable, never silently unconfined", () => {
    const state = sandboxState({ platform: "win32", path: "", uid: -1 });
    assert.equal(state.type, "unavailable");
  });
});

describe("telling the model what the sandbox blocked", () => {
  const cwd = "/home/u/project";
  test("writes outside, by the wording of common tools", () => {
    for (const line of [
      "bash: line 1: ../outside/x: Read-only file system",
      "touch: cannot touch '../outside/x': Read-only file system",
      "OSError: [Errno 30] Read-only file system: '../outside/x'",
      "Error: EROFS: read-only file system, open '../outside/x'",
    ]) {
      assert.deepEqual(
        sandboxNotes(line, policy, cwd),
        [
          "Blocked by the sandbox: writing /home/u/outside/x (only the workspace, /tmp and the configured paths are writable).",
        ],
        line,
      );
    }
  });

  test("a hidden secret, a network failure, and ordinary errors that are not the sandbox's", () => {
    assert.match(
      sandboxNotes("cat: /home/u/.ssh/id_rsa: No such file or directory", policy, cwd)[0] ?? "",
      /reading \/home\/u\/\.ssh/,
    );
    assert.match(
      sandboxNotes("curl: (6) Could not resolve host: registry.npmjs.org", policy, cwd)[0] ?? "",
      /network access to registry\.npmjs\.org/,
    );
    assert.deepEqual(sandboxNotes("cat: missing.txt: No such file or directory", policy, cwd), []);
    assert.deepEqual(
      sandboxNotes("curl: (6) Could not resolve host: x.org", { ...policy, network: true }, cwd),
      [],
    );
  });
});

describe("commands under the sandbox", () => {
  const skip = sandboxMissing() ?? false;
  const confined = { mode: "workspace-write" as const, network: false };

  test("runs a command exactly as bash would: output, exit code, quoting", { skip }, async () => {
    const box = sandbox();
    const tools = host(box, { mode: "approve_all", sandbox: confined });
    const result = await run(tools, "bash", {
      command: `printf '%s|' "$0" 'a b' "it's"; echo; echo made > new.txt; exit 3`,
    });
    assert.equal(result.isError, true);
    assert.match(result.content, /^Exit code 3\./);
    assert.match(result.content, /bash\|a b\|it's\|/);
    assert.equal(readFileSync(box.path("new.txt"), "utf8"), "made\n");
  });

  test("an interrupt as a sandboxed command starts is an interrupt, never a broken sandbox: later commands stay confined", {
    skip,
  }, async () => {
    const box = sandbox();
    const tools = host(box, { mode: "approve_all", sandbox: confined });
    // Interrupts landing at every stage: before dispatch, during the checkpoint, as bubblewrap starts.
    for (const delayMs of [0, 1, 2, 4, 8, 16, 32, 64]) {
      const stopped = new AbortController();
      const pending = run(tools, "bash", { command: "sleep 5" }, { signal: stopped.signal });
      setTimeout(() => stopped.abort(), delayMs);
      const result = await pending;
      assert.equal(result.code, "aborted", `${delayMs} ms: ${result.content}`);
      assert.doesNotMatch(result.content, /sandbox could not start/, `${delayMs} ms`);
      assert.equal(
        tools.sandbox.unavailable(),
        null,
        `${delayMs} ms: the sandbox was marked broken`,
      );
    }
    const next = await run(tools, "bash", { command: "echo ok" });
    assert.equal(next.isError, false, next.content);
  });

  test("the sandbox's own watcher is no child of the command: a command that waits for all its children ends", {
    skip,
  }, async () => {
    const box = sandbox();
    const tools = host(box, { mode: "approve_all", sandbox: confined });
    // `read` and the redirection are builtins: the shell lists its children without making one.
    const result = await run(tools, "bash", {
      command: 'read -r kids < /proc/$$/task/$$/children; echo "children:[$kids]"',
    });
    assert.equal(result.isError, false, result.content);
    assert.match(result.content, /children:\[\]/);
  });

  test("writes outside the workspace fail and the model is told why, through links too", {
    skip,
  }, async () => {
    const box = sandbox();
    // Outside the OS temp dir's view: the sandbox's own /tmp would hide it altogether.
    const outsideDir = join(box.root, "outside");
    mkdirSync(outsideDir);
    writeFileSync(join(outsideDir, "x"), "keep\n");
    symlinkSync(outsideDir, box.path("link"));
    const tools = host(box, { mode: "approve_all", sandbox: confined });
    const result = await run(tools, "bash", {
      command: "echo gone > link/x; echo gone > ../outside/x",
    });
    assert.equal(readFileSync(join(outsideDir, "x"), "utf8"), "keep\n");
    assert.equal(result.isError, true);
  });

  test("a private path inside another (a config folder inside the data folder) is hidden with it, and commands still run", {
    skip,
  }, async () => {
    // bench/eval ran nex with --data-dir D and XDG_CONFIG_HOME=D/config: bubblewrap could not make
    // D/config/nex inside D's read-only tmpfs, and every command failed before it started.
    const box = sandbox();
    const data = join(box.root, "data");
    mkdirSync(join(data, "config", "nex"), { recursive: true });
    writeFileSync(join(data, "config", "nex", "secret"), "key\n");
    const privatePaths = [data, join(data, "config", "nex")];
    const tools = host(box, { mode: "approve_all", sandbox: { ...confined, privatePaths } });
    const result = await run(tools, "bash", {
      command: `echo ran; cat ${JSON.stringify(join(data, "config", "nex", "secret"))}`,
    });
    assert.match(result.content, /ran/, result.content);
    assert.doesNotMatch(result.content, /key/);
    const reversed = host(box, {
      mode: "approve_all",
      sandbox: { ...confined, privatePaths: [...privatePaths].reverse() },
    });
    const again = await run(reversed, "bash", { command: "echo ran" });
    assert.equal(again.isError, false, again.content);
  });

  test("a sandbox that fails to start runs nothing, and later commands need a person", {
    skip,
  }, async () => {
    const box = sandbox();
    const bin = join(box.root, "bin");
    mkdirSync(bin);
    // A bwrap that cannot create its namespaces, as in a locked-down container.
    writeFileSync(
      join(bin, "bwrap"),
      "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n",
    );
    chmodSync(join(bin, "bwrap"), 0o755);
    const tools = host(box, {
      mode: "approve_all",
      sandbox: confined,
      unattended: true,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    });
    const result = await run(tools, "bash", { command: "echo ran > ran.txt" });
    assert.match(result.content, /^Not run: the sandbox could not start \(bwrap: No permissions/);
    assert.throws(() => readFileSync(box.path("ran.txt")));
    const next = await tools.permission({
      id: "c",
      name: "bash",
      args: { command: "ls" },
      turn: 2,
    });
    assert.equal(next.type, "deny");
    assert.match(
      next.type === "deny" ? next.reason : "",
      /cannot start here: bubblewrap failed to start/,
    );
  });

  test("unavailable in the chat: the person is asked, warned that it would run unconfined", async () => {
    const box = sandbox();
    const tools = host(box, {
      mode: "approve_all",
      sandbox: confined,
      env: { ...process.env, PATH: "/nonexistent" },
    });
    const check = await tools.permission({
      id: "c",
      name: "bash",
      args: { command: "ls" },
      turn: 1,
    });
    assert.equal(check.type, "ask");
    assert.match(
      check.type === "ask" ? check.summary : "",
      /⚠ would run UNCONFINED: the sandbox \(workspace-write\) cannot start here/,
    );
  });
});
