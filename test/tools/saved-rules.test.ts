// What "always allow in this project" may save: a command and its subcommand, one rule per simple
// command; never a hazard, code nex cannot see, a command with no subcommand, or a file tool.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ToolInvocation } from "../../src/protocol/index.ts";
import { host, sandbox } from "./helpers.ts";

const call = (name: string, args: Record<string, unknown>): ToolInvocation => ({
  id: "c",
  name,
  args,
  turn: 1,
});
const bash = (command: string) => call("bash", { command });

test("a command line saves one precise rule per command", async () => {
  const tools = host(sandbox(), { mode: "ask" });
  assert.deepEqual(await tools.savableRules(bash("npm test -- --watch")), { rules: ["npm test"] });
  assert.deepEqual(await tools.savableRules(bash("npm run build && npm test")), {
    rules: ["npm run", "npm test"],
  });
});

test("hazards, hidden code, bare commands and file tools are not saved", async () => {
  const tools = host(sandbox(), { mode: "ask" });
  for (const [invocation, why] of [
    [bash("git push --force origin main"), /undo could not repair/],
    [bash("sudo apt install x"), /undo could not repair|code nex cannot see/],
    [bash('eval "npm test"'), /code nex cannot see/],
    [bash("$RUNNER test"), /code nex cannot see/],
    [bash("make"), /a rule is a command and its subcommand/],
    [bash("rm build.log"), /a rule is a command and its subcommand/],
    [call("edit_file", { path: "a", old_string: "x", new_string: "y" }), /not saved/],
  ] as const) {
    const found = await tools.savableRules(invocation);
    assert.ok("refused" in found, `${JSON.stringify(invocation.args)} must not be saved`);
    assert.match(found.refused, why);
  }
});

test("a pipeline of an approved command and read-only ones runs unasked, and saves a rule for its changing part only", async () => {
  const tools = host(sandbox(), { mode: "ask", rules: { allow: ["npm test"] } });
  assert.deepEqual(await tools.permission(bash("npm test | tail -5")), { type: "allow" });
  assert.deepEqual(await tools.permission(bash("npm test 2>&1 | grep -c fail")), { type: "allow" });
  // A read-only part naming a file outside the workspace, or a part no rule covers, still asks.
  assert.equal((await tools.permission(bash("npm test | cat /etc/passwd"))).type, "ask");
  assert.equal((await tools.permission(bash("npm test | sh"))).type, "ask");
  assert.equal((await tools.permission(bash("npm test | tee out.txt"))).type, "ask");

  const fresh = host(sandbox(), { mode: "ask" });
  assert.deepEqual(await fresh.savableRules(bash("npm test | tail -5")), { rules: ["npm test"] });
  assert.deepEqual(await fresh.savableRules(bash("npm run build | head -20 && npm test")), {
    rules: ["npm run", "npm test"],
  });
  // Approved for the session (`y`, then `a`): the same command with another reader is not asked again.
  fresh.rememberApproval(bash("npm test"));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(await fresh.permission(bash("npm test | tail -5")), { type: "allow" });
});
