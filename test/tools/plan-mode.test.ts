// Plan mode: the model reads and proposes; nothing it calls may change anything. The refusal tells
// it so and what to do instead; the user's own `!command` still runs (prompt-input's concern).
import assert from "node:assert/strict";
import { test } from "node:test";
import { bashCall, host, sandbox, toolCall } from "./helpers.ts";

const call = toolCall;
const bash = bashCall;

test("plan mode runs reads and read-only commands without asking", async () => {
  const tools = host(sandbox(), { mode: "plan" });
  for (const invocation of [
    call("read_file", { path: "a" }),
    call("grep", { pattern: "x" }),
    call("glob", { pattern: "*" }),
    call("list_dir", {}),
    bash("git status"),
    bash("ls -la src | head -5"),
    bash("cat package.json"),
  ])
    assert.deepEqual(
      await tools.permission(invocation),
      { type: "allow" },
      JSON.stringify(invocation.args),
    );
});

test("plan mode refuses every edit and changing command, saying it is plan mode and what to do", async () => {
  const tools = host(sandbox(), { mode: "plan", rules: { allow: ["npm test"] } });
  for (const invocation of [
    call("write_file", { path: "a.ts", content: "x" }),
    call("edit_file", { path: "a.ts", old_string: "x", new_string: "y" }),
    bash("npm test"),
    bash("rm -rf build"),
    bash("echo x > a.txt"),
    bash("sed -i s/a/b/ a.txt"),
    bash("git status && touch x"),
    bash('eval "ls"'),
  ]) {
    const verdict = await tools.permission(invocation);
    assert.equal(verdict.type, "deny", JSON.stringify(invocation.args));
    assert.ok(verdict.type === "deny");
    assert.match(verdict.reason, /plan mode/);
    assert.match(verdict.reason, /answer with your plan/);
    assert.match(verdict.reason, /Do not look for another way/);
  }
});

test("a plan-mode refusal carries the verdict ask mode would give, and a deny rule still wins", async () => {
  const tools = host(sandbox(), { mode: "plan", rules: { allow: ["npm test"], deny: ["rm"] } });
  const allowed = await tools.permission(bash("npm test"));
  assert.ok(allowed.type === "deny");
  assert.deepEqual(allowed.outsidePlan, { type: "allow" });
  const asked = await tools.permission(bash("make build"));
  assert.ok(asked.type === "deny");
  assert.equal(asked.outsidePlan?.type, "ask");
  const denied = await tools.permission(bash("rm a.txt"));
  assert.ok(denied.type === "deny");
  assert.equal(denied.outsidePlan, undefined);
  assert.match(denied.reason, /deny rule/);
});

test("leaving plan mode lets the same calls run as the new mode says", async () => {
  const tools = host(sandbox(), { mode: "plan" });
  assert.equal(
    (await tools.permission(call("write_file", { path: "a", content: "x" }))).type,
    "deny",
  );
  tools.setMode("auto_edit");
  assert.deepEqual(await tools.permission(call("write_file", { path: "a", content: "x" })), {
    type: "allow",
  });
});
