// `nex run --mode plan` (and Claude Code's `--permission-mode plan`): the model's write is refused
// with plan mode's words, nothing changes on disk, and the run ends with the model's plan (exit 4:
// nothing changed, an action refused).
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";

for (const flags of [
  ["--mode", "plan"],
  ["--permission-mode", "plan"],
]) {
  test(`nex run ${flags.join(" ")} refuses the model's write and prints its plan`, async () => {
    const scripts = [
      openaiToolCall({ name: "write_file", args: { path: "made.txt", content: "x\n" } }),
      openaiText("Plan: create made.txt."),
    ];
    const stub = await startStubEndpoint({ handler: () => scripts.shift() ?? openaiText("extra") });
    const box = makeSandbox();
    const result = await runNex(
      ["run", "--model", "m", "--base-url", `${stub.url}/v1`, ...flags, "make the file"],
      { cwd: box.workspace, env: { ...box.env, OPENAI_API_KEY: "test" } },
    );
    await stub.close();
    // Exit 4: nothing changed and an action was refused, as the outcome line says.
    assert.equal(result.code, 4, result.stderr);
    assert.match(result.stderr, /"result":"nothing_changed"/);
    assert.match(result.stdout, /Plan: create made\.txt\./);
    assert.equal(existsSync(join(box.workspace, "made.txt")), false);
    const bodies = stub.requestsTo("/v1/chat/completions").map((r) => r.rawBody);
    assert.match(bodies[0] ?? "", /\[nex\] Plan mode is on/);
    assert.match(bodies[1] ?? "", /nex is in plan mode \(read-only\)/);
  });
}
