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
