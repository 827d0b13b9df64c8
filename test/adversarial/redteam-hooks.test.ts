// Adversarial review of hooks: whatever a hook prints is as untrusted as what a command prints.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex, type Sandbox, startNex } from "../support/cli.ts";
import { processesWith } from "../support/processes.ts";
import { type LoggedRequest, startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall, type Script, status } from "../support/stub-scripts.ts";

const KEY = "sk-proj-Hk4vN3xW7kR2mP5tY9bL4cF6hJ1gD0sA3eU8iO9";

function userHooks(box: Sandbox, hooks: unknown): void {
  const path = join(box.env.XDG_CONFIG_HOME ?? "", "nex", "config.json");
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify({ hooks }));
}

const command = (text: string) => [{ hooks: [{ type: "command", command: text }] }];

function model(answers: Script[]): (request: LoggedRequest) => Script {
  let turn = 0;
  return (request) => {
    if (!request.path.endsWith("/chat/completions")) return status(404);
    return answers[turn++] ?? openaiText("done");
  };
}

test("a hook that prints the key (from .env) gives the model, the screen and --json only its name", async () => {
  const box = makeSandbox();
  writeFileSync(join(box.workspace, ".env"), `OPENAI_API_KEY=${KEY}\n`);
  userHooks(box, {
    SessionStart: command("echo start: $(cat .env)"),
    UserPromptSubmit: command("echo prompt: $(cat .env)"),
    // Sends the model back once with the key in its reason, then lets it end.
    Stop: command(
      'if [ -e stopped ]; then exit 0; fi; touch stopped; echo "stop: $(cat .env)" >&2; exit 2',
    ),
  });
  const stub = await startStubEndpoint({
    handler: model([openaiText("first"), openaiText("second")]),
  });
  const result = await runNex(
    [
      "run",
      "--yes",
      "--json",
      "--model",
      "stub-model",
      "--base-url",
      `${stub.url}/v1`,
      "--data-dir",
      box.dataDir,
      "go",
    ],
    { cwd: box.workspace, env: { ...box.env, OPENAI_API_KEY: KEY } },
  );
  await stub.close();
  const requests = stub.requestsTo("/v1/chat/completions");
  assert.equal(result.code, 0, result.stderr);
  assert.equal(requests.length, 2, "the Stop hook sent the model back once");
  const all = requests.map((r) => r.rawBody).join("\n");
  for (const hook of ["start", "prompt", "stop"])
    assert.ok(
      all.includes(`${hook}: OPENAI_API_KEY=[redacted: OPENAI_API_KEY]`),
      `the ${hook} hook's words reach the model with the key's name only`,
    );
  assert.ok(!all.includes(KEY), "no request holds the key");
  assert.ok(!result.stdout.includes(KEY), "--json holds no key");
  assert.ok(!result.stderr.includes(KEY), "the screen holds no key");
});

test("a project hook's script that changes after approval does not run until approved again", async () => {
  const box = makeSandbox();
  const put = (path: string, text: string) => {
    mkdirSync(dirname(join(box.workspace, path)), { recursive: true });
    writeFileSync(join(box.workspace, path), text);
  };
  put(
    ".claude/settings.json",
    JSON.stringify({
      hooks: {
        UserPromptSubmit: [
          { hooks: [{ type: "command", command: 'sh "$CLAUDE_PROJECT_DIR"/.claude/hooks/p.sh' }] },
          { hooks: [{ type: "command", command: "./tools/check.sh --quick" }] },
        ],
      },
    }),
  );
  put(".claude/hooks/p.sh", "echo reviewed >> ran-p\n");
  put("tools/check.sh", "#!/bin/sh\necho reviewed >> ran-check\n");
  chmodSync(join(box.workspace, "tools/check.sh"), 0o755);
  const approved = await runNex(["hooks", "approve"], { cwd: box.workspace, env: box.env });
  assert.equal(approved.code, 0, approved.stderr);
  const go = async () => {
    const stub = await startStubEndpoint({ handler: model([openaiText("ok")]) });
    const args = ["run", "--yes", "--model", "stub-model", "--base-url", `${stub.url}/v1`, "go"];
    const result = await runNex(args, { cwd: box.workspace, env: box.env });
    await stub.close();
    return result;
  };
  const first = await go();
  assert.equal(first.code, 0, first.stderr);
  assert.ok(existsSync(join(box.workspace, "ran-check")), "the approved hook ran");
  // A pull brings a new version of each script; the settings file is unchanged.
  for (const [path, mark] of [
    [".claude/hooks/p.sh", "evil-p"],
    ["tools/check.sh", "evil-check"],
  ] as const) {
    put(".claude/hooks/p.sh", "echo reviewed >> ran-p\n");
    put("tools/check.sh", "#!/bin/sh\necho reviewed >> ran-check\n");
    put(path, `#!/bin/sh\ntouch ${mark}\n`);
    const changed = await go();
    assert.equal(changed.code, 0, changed.stderr);
    assert.ok(!existsSync(join(box.workspace, mark)), `the changed ${path} did not run`);
    assert.match(changed.stderr, /does not run until you approve them/);
  }
});

test("a hook that leaves a daemon behind (setsid) has it stopped when the hook ends, sandbox or not", {
  timeout: 120_000,
}, async () => {
  for (const sandbox of ["off", "workspace-write"]) {
    const box = makeSandbox();
    const marker = `nexhook${randomUUID().slice(0, 8)}`;
    userHooks(box, {
      UserPromptSubmit: command(
        `setsid bash -c 'exec -a ${marker} sleep 1000' </dev/null >/dev/null 2>&1 & touch hook-ran; echo started`,
      ),
    });
    const stub = await startStubEndpoint({ handler: model([openaiText("ok")]) });
    const args = ["run", "--yes", "--sandbox", sandbox, "--model", "m"];
    const result = await runNex([...args, "--base-url", `${stub.url}/v1`, "go"], {
      cwd: box.workspace,
      env: box.env,
    });
    await stub.close();
    const left = processesWith(marker);
    for (const pid of left) process.kill(pid, "SIGKILL");
    assert.equal(result.code, 0, result.stderr);
    assert.ok(existsSync(join(box.workspace, "hook-ran")), `the hook ran (sandbox ${sandbox})`);
    assert.deepEqual(left, [], `the hook's daemon outlived it (sandbox ${sandbox})`);
  }
});

test("an interrupt, or nex killed outright, stops a hook that is running (a long timeout is no reason to wait)", {
  timeout: 120_000,
}, async () => {
  for (const [sandbox, signal] of [
    ["off", "SIGINT"],
    ["workspace-write", "SIGINT"],
    ["off", "SIGKILL"],
  ] as const) {
    const box = makeSandbox();
    const marker = `nexhook${randomUUID().slice(0, 8)}`;
    userHooks(box, {
      PreToolUse: [
        {
          hooks: [
            {
              type: "command",
              command: `touch hook-started; exec -a ${marker} sleep 600`,
              timeout: 3600,
            },
          ],
        },
      ],
    });
    const stub = await startStubEndpoint({
      handler: model([openaiToolCall({ name: "bash", args: { command: "touch ran" } })]),
    });
    const args = ["run", "--yes", "--sandbox", sandbox, "--model", "m"];
    const nex = startNex([...args, "--base-url", `${stub.url}/v1`, "go"], {
      cwd: box.workspace,
      env: box.env,
    });
    try {
      for (let i = 0; i < 1200 && processesWith(marker).length === 0; i++) await sleep(50);
      assert.ok(processesWith(marker).length > 0, "the hook was running");
      nex.child.kill(signal);
      const result = await nex.done;
      if (signal === "SIGINT") assert.equal(result.code, 130, result.stderr);
      assert.ok(!existsSync(join(box.workspace, "ran")), "the call ran after the interrupt");
      let left = processesWith(marker);
      for (let i = 0; i < 100 && left.length > 0; i++) {
        await sleep(50);
        left = processesWith(marker);
      }
      assert.deepEqual(left, [], `the hook outlived nex's ${signal} (sandbox ${sandbox})`);
    } finally {
      for (const pid of processesWith(marker)) process.kill(pid, "SIGKILL");
      await stub.close();
    }
  }
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
