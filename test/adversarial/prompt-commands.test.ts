// What the prompt itself can do beyond asking the model: `!command` runs a command and puts it with
// its output into the conversation, without a request; `/init` has the model write AGENTS.md under
// the usual approvals.
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, type Sandbox, startNex } from "../support/cli.ts";
import { type Script, startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";

async function run(box: Sandbox, args: string[], scripts: Script[]) {
  const stub = await startStubEndpoint({ scripts });
  const [command = "run", ...rest] = args;
  const result = await startNex(
    [command, "--model", "stub-model", "--base-url", `${stub.url}/v1`, ...rest],
    { cwd: box.workspace, env: box.env },
  ).done;
  await stub.close();
  const bodies = stub.requestsTo("/v1/chat/completions").map((r) => JSON.stringify(r.body));
  return { result, bodies };
}

test("!command runs the command without asking the model; it and its output reach the model with the next prompt", async () => {
  const box = makeSandbox();
  const ran = await run(box, ["run", "--yes", "!echo hi-$((40+2))"], [openaiText("never")]);
  assert.equal(ran.result.code, 0, ran.result.stderr);
  assert.match(ran.result.stdout, /hi-42/);
  assert.equal(ran.bodies.length, 0, "no request was sent");

  const next = await run(box, ["resume", "--last", "what did it print?"], [openaiText("42.")]);
  assert.equal(next.result.code, 0, next.result.stderr);
  assert.match(next.bodies[0] ?? "", /The user ran `echo hi-\$\(\(40\+2\)\)` themselves/);
  assert.match(next.bodies[0] ?? "", /hi-42/);
});

test("!command needs the approval any command needs: headless without --yes it does not run and nothing is added", async () => {
  const box = makeSandbox();
  const refused = await run(box, ["run", "!touch made-it"], [openaiText("never")]);
  assert.notEqual(refused.result.code, 0);
  assert.match(refused.result.stderr, /`touch made-it` was not run: .*Nothing was added/);
  assert.equal(existsSync(join(box.workspace, "made-it")), false);
  assert.equal(refused.bodies.length, 0);
});

test("a failing !command still joins the conversation with its output", async () => {
  const box = makeSandbox();
  const ran = await run(box, ["run", "--yes", "!echo broken >&2; exit 3"], []);
  assert.notEqual(ran.result.stdout + ran.result.stderr, "");
  const next = await run(box, ["resume", "--last", "why?"], [openaiText("ok")]);
  assert.match(next.bodies[0] ?? "", /The user ran `echo broken >&2; exit 3`/);
  assert.match(next.bodies[0] ?? "", /broken/);
});

test("/init asks the model to look at the repository and write AGENTS.md with its file tools (headless too)", async () => {
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "package.json"), '{"scripts":{"test":"node --test"}}\n');
  const { result, bodies } = await run(
    box,
    ["run", "--yes", "/init"],
    [
      openaiToolCall({ name: "read_file", args: { path: "package.json" } }),
      openaiToolCall({
        name: "write_file",
        args: { path: "AGENTS.md", content: "# Agents\n\nTest with `npm test`.\n" },
      }),
      openaiText("Wrote AGENTS.md."),
    ],
  );
  assert.equal(result.code, 0, result.stderr);
  const first = JSON.parse(bodies[0] ?? "{}").messages.at(-1).content as string;
  assert.match(first, /write or update AGENTS\.md/);
  assert.match(first, /If AGENTS\.md exists, read it first and change it with edit_file/);
  assert.equal(
    readFileSync(join(box.workspace, "AGENTS.md"), "utf8"),
    "# Agents\n\nTest with `npm test`.\n",
  );
});

test("/init without approval changes nothing: the write is refused and the existing AGENTS.md is kept", async () => {
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "AGENTS.md"), "# Ours\n");
  const { result } = await run(
    box,
    ["run", "/init"],
    [
      openaiToolCall({ name: "read_file", args: { path: "AGENTS.md" } }),
      openaiToolCall({
        name: "write_file",
        args: { path: "AGENTS.md", content: "# Replaced\n" },
      }),
      openaiText("Could not write."),
    ],
  );
  assert.notEqual(result.code, 0);
  assert.equal(readFileSync(join(box.workspace, "AGENTS.md"), "utf8"), "# Ours\n");
});
