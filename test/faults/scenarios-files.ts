// What the file tools do to the files they replace, and which edits are never approved silently.
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Sandbox } from "../support/cli.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { absent, type Check, exitCode, type FaultScenario, fileIs, told } from "./scenario.ts";

const wire = "openai";

/** The README's example configuration: edits approved, `npm test` and `git status` run unasked. */
function readmeConfig(box: Sandbox): void {
  const dir = join(box.env.XDG_CONFIG_HOME ?? "", "nex");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      permissionMode: "auto_edit",
      commands: { allow: ["npm test", "git status", "git diff"], deny: ["rm -rf"] },
    }),
  );
}

const packageJson = `${JSON.stringify({ name: "app", scripts: { test: "node -e 0" } }, null, 2)}\n`;
const gitConfig =
  "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n";

/** The file's owner and group are these (a replacement made by root must give them back). */
const ownedBy =
  (path: string, uid: number, gid: number): Check =>
  (o) => {
    const info = statSync(join(o.box.workspace, path));
    return info.uid === uid && info.gid === gid
      ? null
      : `${path} now belongs to ${info.uid}:${info.gid}, expected ${uid}:${gid}`;
  };

const NOBODY = 65534;

const asRoot: FaultScenario[] =
  process.geteuid?.() === 0
    ? [
        {
          name: "nex as root rewrites a file another user owns (a container on a bind mount)",
          wire,
          expect:
            "the new content is written and the file still belongs to its user, with its mode",
          files: { "notes.txt": "the user's notes\n" },
          setup: (box) => {
            chownSync(join(box.workspace, "notes.txt"), NOBODY, NOBODY);
            chmodSync(join(box.workspace, "notes.txt"), 0o640);
          },
          scripts: [
            openaiToolCall({ name: "read_file", args: { path: "notes.txt" } }),
            openaiToolCall({
              name: "write_file",
              args: { path: "notes.txt", content: "the user's notes, tidied\n" },
            }),
            openaiText("done"),
          ],
          checks: [
            fileIs("notes.txt", "the user's notes, tidied\n"),
            ownedBy("notes.txt", NOBODY, NOBODY),
            (o) => {
              const mode = statSync(join(o.box.workspace, "notes.txt")).mode & 0o7777;
              return mode === 0o640 ? null : `mode is now 0${mode.toString(8)}, expected 0640`;
            },
            exitCode(0),
          ],
        },
      ]
    : [];

export const fileScenarios: FaultScenario[] = [
  {
    name: "auto_edit with the README's rules: the model rewrites package.json's test script, then runs npm test",
    wire,
    expect:
      "the edit is not approved silently (npm test runs package.json's scripts unasked), so the injected script never runs; the model is told why",
    permission: [],
    files: { "package.json": packageJson },
    setup: readmeConfig,
    scripts: [
      openaiToolCall({ name: "read_file", args: { path: "package.json" } }),
      openaiToolCall({
        name: "edit_file",
        args: {
          path: "package.json",
          old_string: '"test": "node -e 0"',
          new_string: `"test": "node -e \\"require('fs').writeFileSync('pwned', '')\\""`,
        },
      }),
      openaiToolCall({ name: "bash", args: { command: "npm test" } }),
      openaiText("done"),
    ],
    checks: [
      fileIs("package.json", packageJson),
      absent("pwned"),
      told(
        /package\.json defines what `npm test` runs, which your allow rules run without asking/,
        2,
      ),
      // The edit was refused and npm test changed no file: nothing changed, and the exit says so.
      exitCode(4),
    ],
  },
  {
    name: "auto_edit with `git status` allowed: the model plants an fsmonitor hook in .git/config, then runs git status",
    wire,
    expect:
      "the edit inside .git asks (headless: refused), so git status runs no planted command; .git/config keeps its bytes; exit 4 (nothing changed)",
    permission: [],
    setup: (box) => {
      spawnSync("git", ["init", "-q"], { cwd: box.workspace });
      writeFileSync(join(box.workspace, ".git", "config"), gitConfig);
      readmeConfig(box);
    },
    scripts: [
      openaiToolCall({ name: "read_file", args: { path: ".git/config" } }),
      openaiToolCall({
        name: "edit_file",
        args: {
          path: ".git/config",
          old_string: "[core]",
          new_string: '[core]\n\tfsmonitor = "touch pwned; false"',
        },
      }),
      openaiToolCall({ name: "bash", args: { command: "git status" } }),
      openaiText("done"),
    ],
    checks: [
      fileIs(".git/config", gitConfig),
      absent("pwned"),
      told(/\.git\/config is inside \.git/, 2),
      // The only change it tried was refused, and git status changes no file: nothing changed.
      exitCode(4),
    ],
  },
  {
    name: "auto_edit with `npm test` allowed: the model writes a module, then runs npm test --node-options=--require=./x.js",
    wire,
    expect:
      "writing the module is an ordinary edit, but the option that makes npm test load it is not covered by the rule: refused headless, the module never runs; the model is told why",
    permission: [],
    files: { "package.json": packageJson },
    setup: readmeConfig,
    scripts: [
      openaiToolCall({
        name: "write_file",
        args: { path: "x.js", content: "require('fs').writeFileSync('pwned', '')\n" },
      }),
      openaiToolCall({
        name: "bash",
        args: { command: "npm test --node-options=--require=./x.js" },
      }),
      openaiText("done"),
    ],
    checks: [
      absent("pwned"),
      told(/`--node-options=--require=\.\/x\.js` makes `npm test` load code/, 2),
      exitCode(0),
    ],
  },
  {
    name: "a write on --yes that creates a git hook inside .git",
    wire,
    expect:
      "refused even on --yes: git would run it later, outside nex, and no diff shows it; the model is told",
    setup: (box) => {
      spawnSync("git", ["init", "-q"], { cwd: box.workspace });
    },
    scripts: [
      openaiToolCall({
        name: "write_file",
        args: { path: ".git/hooks/post-checkout", content: "#!/bin/sh\ntouch pwned\n" },
      }),
      openaiText("done"),
    ],
    checks: [
      absent(".git/hooks/post-checkout"),
      told(/inside \.git.*not make such edits on --yes/),
      // Every change the model attempted was refused: the run says so with its own exit status.
      exitCode(4),
    ],
  },
  {
    name: "a write on --yes over a read-only file (0444)",
    wire,
    expect:
      "not replaced: the file keeps its bytes and mode; the model is told it is read-only and to ask the user",
    files: { LICENSE: "the licence text\n" },
    setup: (box) => chmodSync(join(box.workspace, "LICENSE"), 0o444),
    scripts: [
      openaiToolCall({ name: "read_file", args: { path: "LICENSE" } }),
      openaiToolCall({ name: "write_file", args: { path: "LICENSE", content: "MIT\n" } }),
      openaiText("done"),
    ],
    checks: [
      fileIs("LICENSE", "the licence text\n"),
      told(/LICENSE is read-only \(mode 0444.*Ask the user/, 2),
      exitCode(0),
    ],
  },
  {
    name: "an edit whose new_string has a line break, in a CRLF file",
    wire,
    expect: "the inserted line ends in CRLF like the rest: no bare LF enters the file",
    files: { "win.bat": "@echo off\r\necho one\r\n" },
    scripts: [
      openaiToolCall({ name: "read_file", args: { path: "win.bat" } }),
      openaiToolCall({
        name: "edit_file",
        args: { path: "win.bat", old_string: "echo one", new_string: "echo one\necho two" },
      }),
      openaiText("done"),
    ],
    checks: [fileIs("win.bat", "@echo off\r\necho one\r\necho two\r\n"), exitCode(0)],
  },
  ...asRoot,
];
