// A model that calls Claude Code's tool names gets nex's tools, through the real CLI, under every
// guard of the tool it stands for.
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex, type Sandbox } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCalls, type Script } from "../support/stub-scripts.ts";

async function run(box: Sandbox, scripts: Script[], extra: string[]) {
  const stub = await startStubEndpoint({ scripts });
  try {
    const result = await runNex(
      [
        "run",
        ...["--model", "stub-model", "--base-url", `${stub.url}/v1`, "--data-dir", box.dataDir],
        ...extra,
        "do it",
      ],
      { cwd: box.workspace, env: { ...box.env, OPENAI_API_KEY: "k" } },
    );
    const bodies = stub.requests
      .filter((request) => request.path.endsWith("/chat/completions"))
      .map((request) => request.body);
    return { result, bodies };
  } finally {
    await stub.close();
  }
}

/** The tool results the model got, in order. */
function toolResults(body: unknown): string[] {
  const { messages } = body as { messages: Array<{ role: string; content: unknown }> };
  return messages.filter((m) => m.role === "tool").map((m) => String(m.content));
}

test("Read, Write, Edit and Bash with Claude Code's argument names run as nex's tools, and the model is told so once per name", async () => {
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "a.txt"), "one\ntwo\n");
  const { result, bodies } = await run(
    box,
    [
      openaiToolCalls([{ name: "Read", args: { file_path: "a.txt", offset: 2, limit: 1 } }]),
      openaiToolCalls([
        { name: "Edit", args: { file_path: "a.txt", old_string: "two", new_string: "TWO" } },
      ]),
      openaiToolCalls([{ name: "Write", args: { file_path: "b.txt", content: "new\n" } }]),
      openaiToolCalls([
        {
          name: "Bash",
          args: { command: "cat b.txt > c.txt", timeout: 30000, description: "copy" },
        },
      ]),
      openaiToolCalls([{ name: "Read", args: { file_path: "c.txt" } }]),
      openaiText("Done."),
    ],
    ["--yes"],
  );
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(join(box.workspace, "a.txt"), "utf8"), "one\nTWO\n");
  assert.equal(readFileSync(join(box.workspace, "b.txt"), "utf8"), "new\n");
  assert.equal(readFileSync(join(box.workspace, "c.txt"), "utf8"), "new\n");
  const results = toolResults(bodies.at(-1));
  assert.equal(results.length, 5);
  assert.match(results[0] ?? "", /Read ran as nex's read_file \(`file_path` is its `path`\)/);
  assert.match(results[0] ?? "", /two/);
  assert.doesNotMatch(results[0] ?? "", /one/);
  assert.match(results[3] ?? "", /Bash ran as nex's bash \(`timeout` is its `timeout_seconds`\)/);
  // Once per name: the second Read has no note.
  assert.doesNotMatch(results[4] ?? "", /ran as nex's/);
  // Nothing is offered under these names: the prompt does not grow.
  const { tools } = bodies[0] as { tools: Array<{ function: { name: string } }> };
  assert.ok(!tools.some((tool) => ["Read", "Bash", "Write", "Edit"].includes(tool.function.name)));
});

test("an alias never reaches past the real tool's limits: --tools and --disallowed-tools refuse it as they refuse the tool", async () => {
  const box = makeSandbox();
  const { result } = await run(
    box,
    [
      openaiToolCalls([{ name: "Bash", args: { command: "touch made-by-bash" } }]),
      openaiToolCalls([{ name: "Write", args: { file_path: "made-by-write", content: "x" } }]),
      openaiText("Done."),
    ],
    ["--yes", "--tools", "read_file,write_file,bash", "--disallowed-tools", "bash,write_file"],
  );
  assert.ok(!existsSync(join(box.workspace, "made-by-bash")), result.stderr);
  assert.ok(!existsSync(join(box.workspace, "made-by-write")));
  assert.match(result.stderr, /bash is not available in this run/);
  assert.match(result.stderr, /write_file is not available in this run/);
});

test("an alias argument nex's tool cannot honour is refused with what to do, and nothing runs", async () => {
  const box = makeSandbox();
  const { result, bodies } = await run(
    box,
    [
      openaiToolCalls([
        { name: "Bash", args: { command: "touch x", dangerouslyDisableSandbox: true } },
      ]),
      openaiText("Done."),
    ],
    ["--yes"],
  );
  assert.ok(!existsSync(join(box.workspace, "x")), result.stderr);
  const results = toolResults(bodies.at(-1));
  assert.match(results[0] ?? "", /Not run: .*nex runs every command in its sandbox/);
});
