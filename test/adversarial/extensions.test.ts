// What users bring from other agents works in nex: command files from `.claude/commands`, skills
// loaded only when used, `@path` attachments. Read with the same care as nex's other files, and a
// command line in a command file runs only with the approvals every command needs.
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex, type Sandbox, startNex } from "../support/cli.ts";
import {
  openaiText,
  openaiToolCall,
  type Script,
  startStubEndpoint,
} from "../support/stub-endpoint.ts";

function put(box: Sandbox, path: string, text: string): void {
  const abs = path.startsWith("~/")
    ? join(box.env.HOME ?? "", path.slice(2))
    : join(box.workspace, path);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, text);
}

/** The user approves the repository's command file (it runs shell lines), as `nex commands` asks. */
async function approve(box: Sandbox, name: string): Promise<void> {
  const approved = await runNex(["commands", "approve", name], {
    cwd: box.workspace,
    env: box.env,
  });
  assert.equal(approved.code, 0, approved.stdout);
}

async function run(box: Sandbox, prompt: string, scripts: Script[], flags: string[] = ["--yes"]) {
  const stub = await startStubEndpoint({ scripts });
  const args = ["run", ...flags, "--model", "stub-model", "--base-url", `${stub.url}/v1`, prompt];
  const result = await startNex(args, { cwd: box.workspace, env: box.env }).done;
  await stub.close();
  const bodies = stub.requestsTo("/v1/chat/completions").map((r) => JSON.stringify(r.body));
  return { result, bodies };
}

test("a command file from .claude/commands runs with its arguments, its command lines' output in place", async () => {
  const box = makeSandbox();
  put(
    box,
    ".claude/commands/review.md",
    "---\ndescription: Review a file\nargument-hint: <file> <focus>\n---\nReview $1 with a focus on $2.\nAll: $ARGUMENTS\n!echo branch-$((40+2))\n",
  );
  await approve(box, "review");
  const { result, bodies } = await run(box, '/review src/a.ts "error handling"', [
    openaiText("Reviewed."),
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(bodies.length, 1);
  const sent = JSON.parse(bodies[0] ?? "{}").messages.at(-1).content as string;
  assert.match(sent, /Review src\/a\.ts with a focus on error handling\./);
  assert.match(sent, /All: src\/a\.ts "error handling"/);
  assert.match(sent, /branch-42/, "the command line ran and its output is in the prompt");
  assert.doesNotMatch(sent, /^---|argument-hint/m, "front matter is not sent");
});

test("a command line in a command file is not run without approval (headless without --yes): nothing is sent", async () => {
  const box = makeSandbox();
  put(box, ".claude/commands/wipe.md", "Clean up.\n!touch ran-anyway\n");
  await approve(box, "wipe");
  const { result, bodies } = await run(box, "/wipe", [openaiText("never")], []);
  assert.notEqual(result.code, 0);
  assert.match(result.stderr, /\/wipe was not run: its command `touch ran-anyway` did not run/);
  assert.equal(bodies.length, 0, "no request was sent");
});

test("a skill costs only its name and description until the model loads it; then its body arrives", async () => {
  const box = makeSandbox();
  put(
    box,
    ".nex/skills/release-notes/SKILL.md",
    "---\nname: release-notes\ndescription: Write release notes from the git log.\n---\nSECRET-RECIPE: group commits by type.\n",
  );
  put(box, ".nex/skills/release-notes/template.md", "TEMPLATE-BODY\n");
  const { result, bodies } = await run(box, "write the notes", [
    openaiToolCall({ name: "skill", args: { name: "release-notes" } }),
    openaiToolCall({ name: "skill", args: { name: "release-notes", file: "template.md" } }),
    openaiText("Done."),
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(bodies[0] ?? "", /release-notes: Write release notes from the git log\./);
  assert.doesNotMatch(bodies[0] ?? "", /SECRET-RECIPE/, "the body is not in the first request");
  assert.match(bodies[1] ?? "", /SECRET-RECIPE/, "loaded on use");
  assert.match(bodies[1] ?? "", /template\.md/);
  assert.match(bodies[2] ?? "", /TEMPLATE-BODY/);
});

test("no skills: no skill tool and no skills section (nothing added to the fixed prompt)", async () => {
  const box = makeSandbox();
  const { result, bodies } = await run(box, "hi", [openaiText("hello")]);
  assert.equal(result.code, 0, result.stderr);
  assert.doesNotMatch(bodies[0] ?? "", /"skill"|Skills \(/);
});

test("broken front matter, a skill without a description and a link out of the workspace are left out, each with a reason", async () => {
  const box = makeSandbox();
  put(box, ".claude/commands/broken.md", "---\ndescription: [unclosed\n---\nbody\n");
  put(box, ".nex/skills/vague/SKILL.md", "---\nname: vague\n---\nbody\n");
  put(box, "~/outside/SKILL.md", "---\nname: sneaky\ndescription: reads outside\n---\nOUTSIDE\n");
  mkdirSync(join(box.workspace, ".nex/skills/sneaky"), { recursive: true });
  symlinkSync(
    join(box.env.HOME ?? "", "outside/SKILL.md"),
    join(box.workspace, ".nex/skills/sneaky/SKILL.md"),
  );
  const { result, bodies } = await run(box, "hi", [openaiText("hello")]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stderr,
    /\.claude\/commands\/broken\.md was left out: its front matter is not valid YAML/,
  );
  assert.match(result.stderr, /vague\/SKILL\.md was left out: it has no `description`/);
  assert.match(result.stderr, /sneaky\/SKILL\.md was not read/);
  assert.doesNotMatch(bodies[0] ?? "", /OUTSIDE|sneaky/);
});

test("@path attaches a workspace file; an @ that names no file stays as typed; @ outside the workspace sends nothing", async () => {
  const box = makeSandbox();
  put(box, "src/config.json", '{"port": 8080}\n');
  const ok = await run(box, "explain @src/config.json, and bump @types/node", [openaiText("ok")]);
  assert.equal(ok.result.code, 0, ok.result.stderr);
  const sent = JSON.parse(ok.bodies[0] ?? "{}").messages.at(-1).content as string;
  assert.match(sent, /<file path="src\/config\.json">\n\{"port": 8080\}\n<\/file>/);
  assert.match(sent, /bump @types\/node/);
  put(box, "~/secret.txt", "TOP-SECRET\n");
  const out = await run(box, "look at @../secret.txt", [openaiText("never")]);
  assert.notEqual(out.result.code, 0);
  assert.match(out.result.stderr, /@\.\.\/secret\.txt was not attached/);
  assert.equal(out.bodies.length, 0);
});
