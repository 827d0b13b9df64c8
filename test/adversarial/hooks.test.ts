// Hooks in Claude Code's format through the real `nex run`: a hook can stop a call (its reason
// reaches the model), add context, send the model back to work; a project's hooks run only after the
// user approved them; a hook that hangs or floods is bounded.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex, type Sandbox, startNex } from "../support/cli.ts";
import {
  openaiText,
  openaiToolCall,
  type Script,
  startStubEndpoint,
} from "../support/stub-endpoint.ts";

function userHooks(box: Sandbox, hooks: unknown): void {
  const path = join(box.env.XDG_CONFIG_HOME ?? "", "nex", "config.json");
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify({ hooks }));
}

function put(box: Sandbox, path: string, text: string): void {
  mkdirSync(dirname(join(box.workspace, path)), { recursive: true });
  writeFileSync(join(box.workspace, path), text);
}

async function run(box: Sandbox, scripts: Script[], prompt = "go") {
  const stub = await startStubEndpoint({ scripts });
  const args = ["run", "--yes", "--model", "stub-model", "--base-url", `${stub.url}/v1`, prompt];
  const result = await startNex(args, { cwd: box.workspace, env: box.env }).done;
  await stub.close();
  const bodies = stub.requestsTo("/v1/chat/completions").map((r) => JSON.stringify(r.body));
  return { result, bodies };
}

const write = (path: string, content: string): Script =>
  openaiToolCall({ name: "write_file", args: { path, content } });

test("a PreToolUse hook (matched by Claude Code's tool name) blocks a write; its reason reaches the model", async () => {
  const box = makeSandbox();
  userHooks(box, {
    PreToolUse: [
      {
        matcher: "Write|Edit",
        hooks: [
          {
            type: "command",
            command: "cat > hook-input.json; echo 'generated files are read-only' >&2; exit 2",
          },
        ],
      },
    ],
  });
  const { result, bodies } = await run(box, [write("gen/out.ts", "x"), openaiText("ok")]);
  assert.equal(result.code, 4, result.stderr);
  assert.ok(!existsSync(join(box.workspace, "gen/out.ts")), "nothing was written");
  assert.match(bodies[1] ?? "", /a PreToolUse hook blocked it: generated files are read-only/);
  const input = JSON.parse(readFileSync(join(box.workspace, "hook-input.json"), "utf8"));
  assert.equal(input.hook_event_name, "PreToolUse");
  assert.equal(input.tool_name, "Write");
  assert.equal(input.tool_input.file_path, join(box.workspace, "gen/out.ts"));
});

test("a JSON decision works too: permissionDecision deny blocks, allow loosens nothing", async () => {
  const box = makeSandbox();
  const deny = JSON.stringify({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: "no bash on Fridays",
    },
  });
  userHooks(box, {
    PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `echo '${deny}'` }] }],
  });
  const { bodies } = await run(box, [
    openaiToolCall({ name: "bash", args: { command: "touch ran" } }),
    openaiText("ok"),
  ]);
  assert.match(bodies[1] ?? "", /no bash on Fridays/);
  assert.ok(!existsSync(join(box.workspace, "ran")));
});

test("a project's hooks do not run until the user approves them; a change needs a new approval", async () => {
  const box = makeSandbox();
  const settings = (mark: string) =>
    JSON.stringify({
      hooks: { PostToolUse: [{ hooks: [{ type: "command", command: `touch ${mark}` }] }] },
    });
  put(box, ".claude/settings.json", settings("hook-ran"));
  const first = await run(box, [openaiToolCall({ name: "list_dir", args: {} }), openaiText("ok")]);
  assert.equal(first.result.code, 0, first.result.stderr);
  assert.match(
    first.result.stderr,
    /This project has hooks that nex does not run until you approve them/,
  );
  assert.ok(!existsSync(join(box.workspace, "hook-ran")), "not run before approval");

  const listed = await runNex(["hooks"], { cwd: box.workspace, env: box.env });
  assert.match(
    listed.stdout,
    /not run until you approve them[\s\S]*PostToolUse: touch hook-ran \(\.claude\/settings\.json\)/,
  );
  const approved = await runNex(["hooks", "approve"], { cwd: box.workspace, env: box.env });
  assert.equal(approved.code, 0, approved.stderr);

  const second = await run(box, [openaiToolCall({ name: "list_dir", args: {} }), openaiText("ok")]);
  assert.equal(second.result.code, 0, second.result.stderr);
  assert.ok(existsSync(join(box.workspace, "hook-ran")), "run after approval");

  put(box, ".claude/settings.json", settings("changed-hook-ran"));
  const third = await run(box, [openaiToolCall({ name: "list_dir", args: {} }), openaiText("ok")]);
  assert.match(third.result.stderr, /does not run until you approve them/);
  assert.ok(
    !existsSync(join(box.workspace, "changed-hook-ran")),
    "a changed hook needs a new approval",
  );
});

test("a UserPromptSubmit hook can block a prompt (nothing is sent) or add context to it", async () => {
  const box = makeSandbox();
  userHooks(box, {
    UserPromptSubmit: [
      {
        hooks: [
          {
            type: "command",
            command: `grep -q password && { echo 'prompt mentions a password' >&2; exit 2; }; echo 'branch: main'`,
          },
        ],
      },
    ],
  });
  const blocked = await run(box, [openaiText("never")], "my password is hunter2");
  assert.notEqual(blocked.result.code, 0);
  assert.match(
    blocked.result.stderr,
    /A UserPromptSubmit hook blocked this prompt, so nothing was sent: prompt mentions a password/,
  );
  assert.equal(blocked.bodies.length, 0);
  const added = await run(box, [openaiText("ok")], "what branch?");
  assert.match(added.bodies[0] ?? "", /what branch\?\\n\\n\[hook context\]\\nbranch: main/);
});

test("a Stop hook sends the model back to work, and is told on its next call that it already did", async () => {
  const box = makeSandbox();
  userHooks(box, {
    Stop: [
      {
        hooks: [
          {
            type: "command",
            command: `grep -q '"stop_hook_active":true' && exit 0; echo 'tests were not run' >&2; exit 2`,
          },
        ],
      },
    ],
  });
  const { result, bodies } = await run(box, [openaiText("done?"), openaiText("ran them, done")]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(bodies.length, 2);
  assert.match(bodies[1] ?? "", /\[Stop hook\] The task is not finished: tests were not run/);
  assert.match(result.stdout, /ran them, done/);
  assert.doesNotMatch(result.stdout, /done\?/);
});

test("a hook that hangs is stopped at its timeout and one that floods is cut; the session goes on", {
  timeout: 120_000,
}, async () => {
  const box = makeSandbox();
  userHooks(box, {
    PreToolUse: [{ hooks: [{ type: "command", command: "sleep 600", timeout: 2 }] }],
    PostToolUse: [
      { hooks: [{ type: "command", command: "yes x | tr -d '\\n' | head -c 5000000; exit 2" }] },
    ],
  });
  const { result, bodies } = await run(box, [
    openaiToolCall({ name: "list_dir", args: {} }),
    openaiText("ok"),
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /did not finish within 2 s and was stopped; nex went on without it/);
  assert.match(
    bodies[1] ?? "",
    /\[PostToolUse hook\] x+\\n\[cut: the hook printed 5000000 bytes; nex keeps 65536\]/,
  );
  assert.ok((bodies[1] ?? "").length < 200_000, "the flood did not reach the model");
});

test("broken hook settings are named with what to fix; nex runs without them", async () => {
  const box = makeSandbox();
  userHooks(box, {
    PreToolUse: [{ matcher: "(", hooks: [{ type: "command", command: "exit 2" }] }],
    OnCoffee: [],
  });
  put(box, ".claude/settings.json", "{ not json");
  const { result } = await run(box, [write("a.txt", "x"), openaiText("ok")]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /matcher "\(" is not a regular expression/);
  assert.match(result.stderr, /hooks for "OnCoffee" are ignored/);
  assert.match(result.stderr, /\.claude\/settings\.json is not valid JSON/);
  assert.equal(readFileSync(join(box.workspace, "a.txt"), "utf8"), "x");
});
