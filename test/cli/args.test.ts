import assert from "node:assert/strict";
import { test } from "node:test";
import { parseCommand, UsageError } from "../../src/cli/args.ts";

test("nex resume takes an id, --last or --session, and an optional task to run headless", () => {
  assert.deepEqual(pick(parseCommand(["resume", "2026", "fix", "it"])), {
    type: "run",
    resume: "2026",
    task: "fix it",
  });
  assert.deepEqual(pick(parseCommand(["resume", "--session", "2026", "fix the tests"])), {
    type: "run",
    resume: "2026",
    task: "fix the tests",
  });
  assert.deepEqual(pick(parseCommand(["resume", "--last", "go", "on"])), {
    type: "run",
    resume: "last",
    task: "go on",
  });
  assert.deepEqual(pick(parseCommand(["resume"])), {
    type: "chat",
    resume: "pick",
    task: undefined,
  });
  assert.deepEqual(pick(parseCommand(["resume", "2026"])), {
    type: "chat",
    resume: "2026",
    task: undefined,
  });
});

test("a bad command line is a usage error that says what to type", () => {
  assert.throws(
    () => parseCommand(["run"]),
    (e: unknown) => e instanceof UsageError && /needs a task/.test(e.message),
  );
  assert.throws(() => parseCommand(["run", "--max-turns", "0", "x"]), UsageError);
  assert.throws(
    () => parseCommand(["fix", "bug"]),
    (e: unknown) => e instanceof UsageError && /nex run "fix bug"/.test(e.message),
  );
  assert.throws(() => parseCommand(["--nope"]), UsageError);
});

test("--yes means approve_all", () => {
  const command = parseCommand(["run", "--yes", "x"]);
  assert.equal(command.type === "run" ? command.options.permissionMode : null, "approve_all");
});

function pick(command: ReturnType<typeof parseCommand>) {
  if (command.type === "run")
    return { type: command.type, resume: command.resume, task: command.task };
  if (command.type === "chat")
    return { type: command.type, resume: command.resume, task: undefined };
  return { type: command.type, resume: null, task: undefined };
}

test("nex doctor takes the endpoint options and --json, and refuses stray words", () => {
  const command = parseCommand(["doctor", "--base-url", "http://127.0.0.1:8000/v1", "--json"]);
  assert.equal(command.type, "doctor");
  assert.ok(command.type === "doctor" && command.options.json);
  assert.equal(command.type === "doctor" && command.options.baseUrl, "http://127.0.0.1:8000/v1");
  assert.throws(
    () => parseCommand(["doctor", "qwen3"]),
    (e: unknown) => e instanceof UsageError && /--model/.test(e.message),
  );
});

test("nex acp takes the usual options and no words: the editor sends the prompts", () => {
  const command = parseCommand(["acp", "--model", "m", "--mode", "auto_edit"]);
  assert.equal(command.type, "acp");
  assert.equal(command.type === "acp" ? command.options.permissionMode : null, "auto_edit");
  assert.throws(() => parseCommand(["acp", "fix", "it"]), UsageError);
});
