// The command line's conventions, as a user of other CLIs expects them: help per command, flags
// checked per command with a suggestion, typos answered with the near word, shell completion, and
// lists as JSON. Each runs the real nex.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText } from "../support/stub-scripts.ts";

test("`nex run --help` and `nex help run` print run's own help, not the global one", async () => {
  const box = makeSandbox();
  for (const args of [
    ["run", "--help"],
    ["help", "run"],
    ["run", "-h"],
  ]) {
    const result = await runNex(args, { cwd: box.workspace, env: box.env });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^nex run: work on a task headless/);
    assert.match(result.stdout, /--output-schema FILE/);
    assert.doesNotMatch(result.stdout, /nex mcp list\|test/, "not the global command list");
  }
  const sessions = await runNex(["sessions", "--help"], { cwd: box.workspace, env: box.env });
  assert.match(sessions.stdout, /^nex sessions: .*\n\nUsage: nex sessions \[--json\]/);
  const global = await runNex(["--help"], { cwd: box.workspace, env: box.env });
  assert.match(global.stdout, /nex mcp list\|test/);
});

test("a flag of another command is refused, naming the command it belongs to (`nex sessions --header X`)", async () => {
  const box = makeSandbox();
  const cases: [string[], RegExp][] = [
    [
      ["sessions", "--header", "X"],
      /nex sessions does not take --header \(it is an option of nex mcp\)\. Run `nex sessions --help`/,
    ],
    [
      ["demo", "--output-format", "json"],
      /nex demo does not take --output-format \(it is an option of nex run, nex resume\)/,
    ],
    [["doctor", "--list"], /nex doctor does not take --list \(it is an option of nex undo\)/],
    [["--json"], /nex chat does not take --json/],
  ];
  for (const [args, message] of cases) {
    const result = await runNex(args, { cwd: box.workspace, env: box.env });
    assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
    assert.match(result.stderr, message);
    assert.equal(result.stderr.split("\n").filter(Boolean).length, 1, "one line");
  }
});

test("a mistyped flag or command gets the near one, in nex's words (never Node's raw parse error)", async () => {
  const box = makeSandbox();
  const cases: [string[], RegExp][] = [
    [
      ["run", "--modle", "x", "task"],
      /^nex: Unknown option --modle\. Did you mean --model\? Run `nex run --help`/,
    ],
    [["run", "--max-turn", "3", "task"], /Did you mean --max-turns\?/],
    [["sesions"], /^nex: Unknown command "sesions"\. Did you mean `nex sessions`\?/],
    [["run", "--model"], /^nex: (-m, )?--model <value> needs a value\. Run `nex run --help`/],
    [["help", "undoo"], /Did you mean `nex undo`\?/],
  ];
  for (const [args, message] of cases) {
    const result = await runNex(args, { cwd: box.workspace, env: box.env });
    assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
    assert.match(result.stderr, message);
    assert.doesNotMatch(result.stderr, /To specify a positional argument|ERR_PARSE_ARGS/);
  }
  // A task of several words is still a task, not a typo of a command.
  const task = await runNex(["fix", "the", "bug"], { cwd: box.workspace, env: box.env });
  assert.match(task.stderr, /To give nex a task, use: nex run "fix the bug"/);
});

test("`nex completion bash` completes commands and each command's own flags in a real bash", async () => {
  const box = makeSandbox();
  const result = await runNex(["completion", "bash"], { cwd: box.workspace, env: box.env });
  assert.equal(result.code, 0, result.stderr);
  const script = join(box.workspace, "nex.bash");
  writeFileSync(script, result.stdout);
  const complete = (...words: string[]) =>
    execFileSync(
      "bash",
      [
        "-c",
        `source "$0"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _nex; printf '%s\\n' "\${COMPREPLY[@]}"`,
        script,
      ],
      { encoding: "utf8" },
    )
      .trim()
      .split("\n");
  assert.deepEqual(complete("nex", "se"), ["sessions"]);
  assert.ok(complete("nex", "run", "--output-").includes("--output-schema"));
  assert.deepEqual(complete("nex", "sessions", "--j"), ["--json"]);
  assert.deepEqual(complete("nex", "sessions", "--head"), [""], "mcp's flag is not offered");
  assert.deepEqual(complete("nex", "completion", "z"), ["zsh"]);

  for (const shell of ["zsh", "fish"]) {
    const other = await runNex(["completion", shell], { cwd: box.workspace, env: box.env });
    assert.equal(other.code, 0);
    assert.match(
      other.stdout,
      shell === "zsh" ? /^#compdef nex/ : /complete -c nex -n __fish_use_subcommand -a run/,
    );
    assert.match(other.stdout, /output-schema/);
  }
  const wrong = await runNex(["completion", "powershell"], { cwd: box.workspace, env: box.env });
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /bash, zsh or fish/);
});

test("`nex sessions --json` prints the sessions as a JSON array (and [] when there are none)", async () => {
  const box = makeSandbox();
  const none = await runNex(["sessions", "--json"], { cwd: box.workspace, env: box.env });
  assert.equal(none.code, 0, none.stderr);
  assert.deepEqual(JSON.parse(none.stdout), []);

  const stub = await startStubEndpoint({ scripts: [openaiText("Done.")] });
  try {
    const run = await runNex(
      ["run", "--model", "stub-model", "--base-url", `${stub.url}/v1`, "say \u001b[31mhi"],
      { cwd: box.workspace, env: { ...box.env, OPENAI_API_KEY: "sk-test" } },
    );
    assert.equal(run.code, 0, run.stderr);
  } finally {
    await stub.close();
  }
  const listed = await runNex(["sessions", "--json"], { cwd: box.workspace, env: box.env });
  assert.equal(listed.code, 0, listed.stderr);
  assert.ok(!listed.stdout.includes("\u001b"), "no raw terminal control");
  const rows = JSON.parse(listed.stdout) as { sessionId: string; firstPrompt: string }[];
  assert.equal(rows.length, 1);
  assert.match(rows[0]?.sessionId ?? "", /^\d{8}-\d{6}-/);
  assert.match(rows[0]?.firstPrompt ?? "", /hi/);
});

test("`nex hooks --json` and `nex commands --json` print their lists as JSON arrays; approving takes no --json", async () => {
  const box = makeSandbox();
  const put = (path: string, text: string): void => {
    mkdirSync(dirname(join(box.workspace, path)), { recursive: true });
    writeFileSync(join(box.workspace, path), text);
  };
  const at = { cwd: box.workspace, env: box.env };
  const noHooks = await runNex(["hooks", "--json"], at);
  assert.equal(noHooks.code, 0, noHooks.stderr);
  assert.deepEqual(JSON.parse(noHooks.stdout), []);
  put(
    ".claude/settings.json",
    JSON.stringify({
      hooks: {
        PostToolUse: [
          { matcher: "Bash", hooks: [{ type: "command", command: "echo \u001b[31mchecked" }] },
        ],
      },
    }),
  );
  const hooks = await runNex(["hooks", "--json"], at);
  assert.equal(hooks.code, 0, hooks.stderr);
  assert.ok(!hooks.stdout.includes("\u001b"), "no raw terminal control");
  assert.deepEqual(JSON.parse(hooks.stdout), [
    {
      event: "PostToolUse",
      matcher: "Bash",
      command: "echo \u001b[31mchecked",
      timeout_seconds: 60,
      source: ".claude/settings.json",
      runs: false,
    },
  ]);
  const approveJson = await runNex(["hooks", "approve", "--json"], at);
  assert.equal(approveJson.code, 2, approveJson.stderr);
  assert.match(approveJson.stderr, /takes no --json/);

  put(".claude/commands/deploy.md", "Deploy it.\n!sh scripts/deploy.sh\n");
  put(".claude/commands/explain.md", "Explain $ARGUMENTS.\n");
  const commands = await runNex(["commands", "--json"], at);
  assert.equal(commands.code, 0, commands.stderr);
  const rows = JSON.parse(commands.stdout) as { name: string; runs: string[]; approved: unknown }[];
  assert.deepEqual(rows.map((r) => [r.name, r.runs, r.approved]).sort(), [
    ["deploy", ["sh scripts/deploy.sh"], false],
    ["explain", [], null],
  ]);
  const approved = await runNex(["commands", "approve", "deploy"], at);
  assert.equal(approved.code, 0, approved.stdout);
  const after = JSON.parse((await runNex(["commands", "--json"], at)).stdout) as {
    name: string;
    approved: unknown;
  }[];
  assert.equal(after.find((r) => r.name === "deploy")?.approved, true);
});
