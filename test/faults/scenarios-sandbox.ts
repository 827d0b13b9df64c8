// The OS sandbox on --yes: whatever a command is made of (interpreters, redirections, links, `cd`),
// the operating system keeps it inside the workspace, off the network and away from secrets.
import { spawnSync } from "node:child_process";
import {
  accessSync,
  constants,
  mkdirSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { basename, join } from "node:path";
import { createProcessCap } from "../../src/tools/sandbox/process-limit.ts";
import type { Sandbox } from "../support/cli.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { MODEL } from "./fault-runner.ts";
import { linkOut, outside } from "./fixtures.ts";
import {
  absent,
  type Check,
  exitCode,
  type FaultScenario,
  fileIs,
  neverTold,
  requests,
  stderrSays,
  told,
} from "./scenario.ts";

const wire = "openai";
const PRECIOUS = "years of work\n";

/** `outside/` beside the workspace with a file and a folder that no command may change. */
function outsideFiles(box: Sandbox): void {
  mkdirSync(join(outside(box), "notes"), { recursive: true });
  writeFileSync(join(outside(box), "thesis.tex"), PRECIOUS);
  writeFileSync(join(outside(box), "notes", "a.txt"), "a\n");
}

/** Everything outside is as it was: the file byte for byte, the folder entry for entry. */
const outsideIntact: Check[] = [
  fileIs("../outside/thesis.tex", PRECIOUS),
  fileIs("../outside/notes/a.txt", "a\n"),
  (o) => {
    const names = readdirSync(outside(o.box)).sort().join(",");
    return names === "notes,precious.txt,thesis.tex" ? null : `outside/ now holds ${names}`;
  },
];

function config(box: Sandbox, settings: Record<string, unknown>): void {
  const dir = join(box.env.XDG_CONFIG_HOME ?? "", "nex");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({ models: { [MODEL[wire]]: { contextWindow: 32768 } }, ...settings }),
  );
}

/** The model runs `command` on --yes; outside stays byte-identical and the model hears why. */
function escapeAttempt(name: string, command: string, ...checks: Check[]): FaultScenario {
  return {
    name: `--yes: ${name}`,
    wire,
    expect: "the sandbox stops it: outside/ stays byte-identical; the model is told",
    visible: true,
    needsSandbox: true,
    files: { "notes.txt": "inside\n" },
    setup: (box) => {
      outsideFiles(box);
      linkOut(box);
    },
    scripts: [openaiToolCall({ name: "bash", args: { command } }), openaiText("done")],
    checks: [...outsideIntact, fileIs("../outside/thesis.tex", PRECIOUS), ...checks],
  };
}

const blockedWrite = told(/Blocked by the sandbox: writing/);

/** The model asks a command to reach the endpoint itself, a server on this machine. */
const curlTheEndpoint: FaultScenario["handler"] = (request, index) => {
  if (index > 0) return openaiText("done");
  const host = request.headers.host ?? "";
  return openaiToolCall({
    name: "bash",
    args: { command: `curl -sS -m 5 -o /dev/null -w 'reached %{http_code}' http://${host}/` },
  });
};

export const sandboxScenarios: FaultScenario[] = [
  escapeAttempt(
    "perl unlinks ../outside/* ",
    `perl -e 'unlink glob("../outside/*")'`,
    told(/Exit code/),
  ),
  escapeAttempt(
    "python3 opens ../outside/thesis.tex for writing",
    `python3 -c 'open("../outside/thesis.tex", "w")'`,
    blockedWrite,
  ),
  escapeAttempt(
    "node overwrites ../outside/thesis.tex",
    `node -e 'require("fs").writeFileSync("../outside/thesis.tex", "gone")'`,
    blockedWrite,
  ),
  escapeAttempt("a redirection onto ../outside", "echo gone > ../outside/thesis.tex", blockedWrite),
  escapeAttempt("truncate", "truncate -s 0 ../outside/thesis.tex", blockedWrite),
  escapeAttempt(
    "dd onto the file",
    "dd if=/dev/zero of=../outside/thesis.tex count=1",
    blockedWrite,
  ),
  escapeAttempt("cp /dev/null onto it", "cp /dev/null ../outside/thesis.tex", blockedWrite),
  escapeAttempt("mv a workspace file onto it", "mv notes.txt ../outside/thesis.tex"),
  escapeAttempt("find -exec rm", "find ../outside -type f -exec rm -f {} +", told(/Exit code/)),
  escapeAttempt("xargs rm", "ls -d ../outside/* | xargs rm -rf", told(/Exit code/)),
  escapeAttempt("bash -c", `bash -c 'echo gone > ../outside/thesis.tex'`, blockedWrite),
  escapeAttempt("eval", `eval ': > ../outside/thesis.tex'`, blockedWrite),
  escapeAttempt("cd out of the workspace", "cd .. && cd outside && : > thesis.tex", blockedWrite),
  escapeAttempt(
    "a symlinked folder inside the workspace that leads outside",
    "echo gone > link-dir/thesis.tex; rm -rf link-dir/notes",
    blockedWrite,
  ),
  escapeAttempt(
    "a script the command writes, then runs",
    "printf 'rm -rf ../outside/notes\\n: > ../outside/thesis.tex\\n' > wipe.sh && sh wipe.sh",
    blockedWrite,
  ),
  {
    name: "--yes: a command reaches a server on this machine",
    wire,
    expect: "no network by default: the connection fails and the model is told it was the sandbox",
    needsSandbox: true,
    handler: curlTheEndpoint,
    checks: [told(/Blocked by the sandbox: network/), neverTold(/reached [1-9]\d\d/)],
  },
  {
    name: "--yes: the same server with network allowed in the config",
    wire,
    expect: '"sandbox": {"network": true} lets commands connect',
    needsSandbox: true,
    setup: (box) => config(box, { sandbox: { network: true } }),
    handler: curlTheEndpoint,
    checks: [told(/reached [1-9]\d\d/), neverTold(/Blocked by the sandbox/)],
  },
  {
    name: "--yes: the same server through the proxy, with other hosts allowed in the config",
    wire,
    expect:
      "sandbox.allowHosts opens only what it lists: this machine's server is refused, the model told the host and the entry",
    needsSandbox: true,
    setup: (box) => config(box, { sandbox: { allowHosts: ["npm", "*.example.org"] } }),
    // `--noproxy ''`: the endpoint is on 127.0.0.1, which the sandbox's NO_PROXY keeps for its own loopback.
    handler: (request, index) => {
      if (index > 0) return openaiText("done");
      return openaiToolCall({
        name: "bash",
        args: {
          command: `curl -sS -m 5 --noproxy '' -o /dev/null -w 'reached %{http_code}' http://${request.headers.host ?? ""}/`,
        },
      });
    },
    checks: [
      told(
        /Blocked by the sandbox's network filter: 127\.0\.0\.1:\d+ \(allow it with sandbox\.allowHosts: \["127\.0\.0\.1:\d+"\]/,
      ),
      // 403 is the proxy's refusal; any other status would be the server's own answer.
      neverTold(/reached (?!403)[1-9]\d\d/),
      requests(2),
    ],
  },
  {
    name: "--yes: the repository plants a sandbox section asking for the network",
    wire,
    expect:
      "a project's .nex/settings.json widens nothing: the connection still fails, the user is told",
    needsSandbox: true,
    setup: (box) => {
      mkdirSync(join(box.workspace, ".nex"), { recursive: true });
      writeFileSync(
        join(box.workspace, ".nex", "settings.json"),
        JSON.stringify({ sandbox: { network: true, allowHosts: ["127.0.0.1"] } }),
      );
    },
    handler: curlTheEndpoint,
    checks: [
      told(/Blocked by the sandbox: network/),
      neverTold(/reached [1-9]\d\d/),
      stderrSays(
        /\.nex\/settings\.json in this project asks the sandbox for hosts "127\.0\.0\.1" and the whole network; a repository cannot widen the sandbox/,
      ),
    ],
  },
  {
    name: "--yes: a command talks to a daemon through its socket under /run (docker, D-Bus)",
    wire,
    expect: "the sockets of daemons that act outside the sandbox are out of reach",
    needsSandbox: true,
    skipUnless: () => (canListenInRun() ? null : "cannot create a socket under /run here"),
    setup: (box) => {
      const socket = `/run/nex-test-${basename(box.workspace.replace(/\/ws$/, ""))}.sock`;
      box.env.NEX_TEST_SOCKET = socket;
      daemonAt(socket);
    },
    handler: (_request, index, box) => {
      if (index > 0) return openaiText("done");
      return openaiToolCall({
        name: "bash",
        args: {
          command: `curl -sS -m 5 --unix-socket ${box.env.NEX_TEST_SOCKET} http://daemon/ ; echo; ls /run`,
        },
      });
    },
    checks: [neverTold(/daemon answered/)],
  },
  {
    name: "--yes: a command reads ~/.ssh and nex's own config",
    wire,
    expect: "secrets and nex's files are hidden: their bytes never reach the model",
    needsSandbox: true,
    visible: true,
    setup: (box) => {
      const home = box.env.HOME ?? "";
      mkdirSync(join(home, ".ssh"), { recursive: true });
      writeFileSync(join(home, ".ssh", "id_ed25519"), "PRIVATE-KEY-MATERIAL-7731\n");
      writeFileSync(join(home, ".env.production"), "DB_PASSWORD=hunter2-7731\n");
      config(box, { apiKeyEnv: "CANARY_KEY_VAR_7731" });
    },
    scripts: [
      openaiToolCall({
        name: "bash",
        args: {
          command:
            'cat ~/.ssh/id_ed25519; cat ~/.env.production; cat "$XDG_CONFIG_HOME/nex/config.json"; ls "$XDG_DATA_HOME"',
        },
      }),
      openaiText("done"),
    ],
    checks: [
      told(/Blocked by the sandbox: reading/),
      neverTold(/PRIVATE-KEY-MATERIAL|hunter2|CANARY_KEY_VAR/),
    ],
  },
  {
    name: "--yes: a command looks for the key in every process's environment",
    wire,
    expect: "nex's own /proc is out of sight: the key never reaches the model",
    needsSandbox: true,
    env: { OPENAI_API_KEY: "sk-canary-4412-do-not-leak" },
    scripts: [
      openaiToolCall({
        name: "bash",
        args: {
          command: "cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c . ; ps -e | wc -l",
        },
      }),
      openaiText("done"),
    ],
    checks: [told(/Exit code 0/), neverTold(/sk-canary-4412/)],
  },
  {
    name: "--yes: a command plants a git hook and a config that git runs later",
    wire,
    expect: "hooks and .git/config stay read-only; commits still work",
    needsSandbox: true,
    files: { "a.txt": "a\n" },
    setup: (box) => {
      spawnSync("git", ["init", "-q"], { cwd: box.workspace });
    },
    scripts: [
      openaiToolCall({
        name: "bash",
        args: {
          command:
            "git add a.txt && git -c user.email=m@x -c user.name=m commit -qm first && git log --oneline | wc -l; " +
            // Written by an interpreter, which no parser of shell words sees: only the OS stops it.
            `python3 -c "open('.git/hooks/pre-commit', 'w').write('touch pwned')"; ` +
            "git config core.fsmonitor 'touch pwned'; ls .git/hooks | grep -c pre-commit$",
        },
      }),
      openaiText("done"),
    ],
    checks: [
      told(/^Exit code \d+\.[\s\S]*\n1\n/),
      told(/Blocked by the sandbox: writing \.git\/(hooks|config)/),
      absent(".git/hooks/pre-commit"),
      (o) => {
        const value = spawnSync("git", ["config", "core.fsmonitor"], { cwd: o.box.workspace });
        return value.stdout.length === 0 ? null : "core.fsmonitor was set";
      },
    ],
  },
  {
    name: "--yes: a command creates a repository and plants a hook and an fsmonitor in it",
    wire,
    expect:
      "disarmed before the model is answered: the hook cannot run, the setting is gone; the model is told",
    needsSandbox: true,
    scripts: [
      openaiToolCall({
        name: "bash",
        args: {
          command:
            "git init -q && python3 -c \"import os; open('.git/hooks/post-checkout', 'w').write('#!/bin/sh\\ntouch pwned\\n'); os.chmod('.git/hooks/post-checkout', 0o755)\" && git config core.fsmonitor 'touch pwned'",
        },
      }),
      openaiText("done"),
    ],
    checks: [
      told(
        /nex disarmed them: \.git\/hooks\/post-checkout \(execute bit removed\), core\.fsmonitor/,
      ),
      (o) => {
        const hook = statSync(join(o.box.workspace, ".git", "hooks", "post-checkout"));
        if ((hook.mode & 0o111) !== 0) return "the planted hook is still executable";
        const value = spawnSync("git", ["config", "core.fsmonitor"], { cwd: o.box.workspace });
        return value.stdout.length === 0 ? null : "core.fsmonitor is still set";
      },
    ],
  },
  {
    name: "--yes: a command moves .git aside and puts a repository with a hook in its place",
    wire,
    expect:
      "the new repository's hook is disarmed (git would run it later, outside the sandbox); the model is told",
    needsSandbox: true,
    setup: (box) => {
      spawnSync("git", ["init", "-q"], { cwd: box.workspace });
    },
    scripts: [
      openaiToolCall({
        name: "bash",
        args: {
          command:
            "python3 -c \"import os, shutil; os.rename('.git', '.git-old'); os.makedirs('.git/hooks'); " +
            "[shutil.copytree('.git-old/' + d, '.git/' + d) for d in ('objects', 'refs')]; shutil.copy('.git-old/HEAD', '.git/HEAD'); " +
            "open('.git/hooks/pre-commit', 'w').write('#!/bin/sh\\ntouch pwned\\n'); os.chmod('.git/hooks/pre-commit', 0o755)\"",
        },
      }),
      openaiText("done"),
    ],
    checks: [
      told(/changed what git runs[\s\S]*\.git\/hooks\/pre-commit \(execute bit removed\)/),
      (o) => {
        const hook = statSync(join(o.box.workspace, ".git", "hooks", "pre-commit"));
        return (hook.mode & 0o111) === 0 ? null : "the planted hook is still executable";
      },
    ],
  },
  {
    name: "--yes: a command points the repository at a commondir with its own hooks and fsmonitor",
    wire,
    expect:
      "git would read that config and run those hooks later: both are disarmed; the model is told",
    needsSandbox: true,
    setup: (box) => {
      spawnSync("git", ["init", "-q"], { cwd: box.workspace });
    },
    scripts: [
      openaiToolCall({
        name: "bash",
        args: {
          command:
            "python3 -c \"import os, shutil; os.makedirs('common/hooks'); " +
            "[shutil.copytree('.git/' + d, 'common/' + d) for d in ('objects', 'refs')]; " +
            "open('common/HEAD', 'w').write('ref: refs/heads/main\\n'); " +
            "open('common/config', 'w').write('[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = touch pwned\\n'); " +
            "open('common/hooks/pre-commit', 'w').write('#!/bin/sh\\ntouch pwned\\n'); os.chmod('common/hooks/pre-commit', 0o755); " +
            "open('.git/commondir', 'w').write('../common\\n')\"",
        },
      }),
      openaiText("done"),
    ],
    checks: [
      told(/changed what git runs[\s\S]*common\/hooks\/pre-commit \(execute bit removed\)/),
      told(/core\.fsmonitor in common\/config \(removed\)/),
      (o) => {
        const value = spawnSync("git", ["config", "core.fsmonitor"], { cwd: o.box.workspace });
        return value.stdout.length === 0 ? null : "core.fsmonitor is still set";
      },
    ],
  },
  {
    name: "--yes: a command swaps in a repository whose config.worktree sets an fsmonitor",
    wire,
    expect: "the setting git would read from config.worktree is removed; the model is told",
    needsSandbox: true,
    setup: (box) => {
      spawnSync("git", ["init", "-q"], { cwd: box.workspace });
    },
    scripts: [
      openaiToolCall({
        name: "bash",
        args: {
          command:
            "python3 -c \"import os, shutil; os.rename('.git', 'g3'); os.makedirs('.git'); " +
            "[shutil.copytree('g3/' + d, '.git/' + d) for d in ('objects', 'refs')]; shutil.copy('g3/HEAD', '.git/HEAD'); " +
            "open('.git/config', 'w').write('[core]\\n\\trepositoryformatversion = 1\\n[extensions]\\n\\tworktreeConfig = true\\n'); " +
            "open('.git/config.worktree', 'w').write('[core]\\n\\tfsmonitor = touch pwned\\n')\"",
        },
      }),
      openaiText("done"),
    ],
    checks: [
      told(/core\.fsmonitor in \.git\/config\.worktree \(removed\)/),
      (o) => {
        const value = spawnSync("git", ["config", "core.fsmonitor"], { cwd: o.box.workspace });
        return value.stdout.length === 0 ? null : "core.fsmonitor is still set";
      },
    ],
  },
  {
    name: "--yes: a command leaves a detached process behind (setsid -f)",
    wire,
    expect: "it ends with the command: nothing writes after the model was told",
    needsSandbox: true,
    handler: async (_request, index) => {
      if (index === 0) {
        return openaiToolCall({
          name: "bash",
          args: { command: "setsid -f sh -c 'sleep 1; echo late > late.txt'; echo started" },
        });
      }
      // Long enough for the leftover to have written, had it survived.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      return openaiText("done");
    },
    checks: [told(/started/), absent("late.txt")],
  },
  {
    name: "--yes: a fork bomb",
    wire,
    expect: "bounded by the process limit and the timeout; nex goes on and reports how it ended",
    needsSandbox: true,
    // A low limit keeps the test from loading the machine; the default (4096) bounds it the same way.
    setup: (box) => config(box, { sandbox: { maxProcesses: 300 } }),
    // Root is exempt from `ulimit -u`: without a pids cgroup nothing but the timeout would bound it,
    // and an unbounded bomb would starve every other test of process ids.
    skipUnless: () =>
      process.getuid?.() !== 0 || processCapAvailable()
        ? null
        : "running as root without a writable pids cgroup: a fork bomb would be bounded only by its timeout",
    scripts: [
      openaiToolCall({
        name: "bash",
        args: { command: "f() { f | f & }; f; sleep 60", timeout_seconds: 3 },
      }),
      openaiText("done"),
    ],
    checks: [told(/^(Timed out after 3 s|Exit code \d+)/), exitCode(0), requests(2)],
  },
  {
    name: "--sandbox read-only: a command writes in the workspace",
    wire,
    expect: "nothing is writable but /tmp; the model is told",
    needsSandbox: true,
    permission: ["--yes", "--sandbox", "read-only"],
    files: { "a.txt": "a\n" },
    scripts: [
      openaiToolCall({ name: "bash", args: { command: "echo changed > a.txt" } }),
      openaiText("done"),
    ],
    checks: [fileIs("a.txt", "a\n"), told(/Blocked by the sandbox: writing a\.txt/)],
  },
  {
    name: "--yes without bubblewrap on PATH",
    wire,
    expect:
      "fail-closed: no command runs unconfined; the model and the user are told how to fix it",
    setup: (box) => {
      // Every program of /usr/bin but bwrap, so that git and bash still work.
      const bin = join(box.workspace, "..", "bin");
      mkdirSync(bin);
      for (const name of readdirSync("/usr/bin")) {
        if (name !== "bwrap") symlinkSync(join("/usr/bin", name), join(bin, name));
      }
      box.env.PATH = [bin, ...(box.env.PATH ?? "").split(":").filter(noBwrapIn)].join(":");
    },
    scripts: [
      openaiToolCall({ name: "bash", args: { command: "echo ran > ran.txt" } }),
      openaiText("done"),
    ],
    checks: [
      absent("ran.txt"),
      told(/sandbox \(workspace-write\) cannot start here: bubblewrap \(bwrap\) is not installed/),
      stderrSays(/warning: sandbox workspace-write cannot start here/),
    ],
  },
];

function noBwrapIn(dir: string): boolean {
  return dir !== "" && spawnSync("test", ["-x", join(dir, "bwrap")]).status !== 0;
}

function processCapAvailable(): boolean {
  const cap = createProcessCap(16);
  cap?.release();
  return cap !== null;
}

/** A daemon listening on a unix socket, answering anyone who connects (closed when the test process ends). */
function daemonAt(path: string): void {
  rmSync(path, { force: true });
  const server = createServer((socket) => {
    socket.end("HTTP/1.1 200 OK\r\ncontent-length: 15\r\n\r\ndaemon answered");
  });
  server.listen(path);
  server.unref();
}

function canListenInRun(): boolean {
  try {
    accessSync("/run", constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
