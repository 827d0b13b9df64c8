import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as v from "valibot";
import { createLedger } from "../../src/tools/files/ledger.ts";
import { dispatch } from "../../src/tools/host/dispatch.ts";
import { createResultStore } from "../../src/tools/results/result-store.ts";
import { defineTool, type Tool, type ToolContext } from "../../src/tools/tool.ts";
import { scratchDir } from "../support/scratch-dir.ts";
import { host, run, sandbox } from "./helpers.ts";

// Seed 001: a dropped `content` must never become an empty file.
test("write_file with a path and no content is refused, names `content`, and creates no file", async () => {
  const box = sandbox();
  const out = await run(host(box), "write_file", { path: "notes.md" });
  assert.equal(out.isError, true);
  assert.equal(out.code, "invalid_arguments");
  assert.match(out.content, /Missing required argument `content`/);
  assert.match(out.content, /dropped/);
  assert.match(out.content, /in parts/);
  assert.equal(existsSync(box.path("notes.md")), false);
});

test("write_file with content and no path is refused and names `path`", async () => {
  const box = sandbox();
  const out = await run(host(box), "write_file", { content: "hello" });
  assert.equal(out.code, "invalid_arguments");
  assert.match(out.content, /Missing required argument `path`/);
});

test("write_file with an explicit empty string creates a 0-byte file", async () => {
  const box = sandbox();
  const out = await run(host(box), "write_file", { path: "empty.txt", content: "" });
  assert.equal(out.isError, false, out.content);
  assert.equal(statSync(box.path("empty.txt")).size, 0);
  assert.match(out.content, /Created empty\.txt: 0 bytes, 0 lines/);
});

test("write_file with a normal call writes the content and reports the UTF-8 bytes read back", async () => {
  const box = sandbox();
  const content = "naïve café ✓\nsecond line\n";
  const out = await run(host(box), "write_file", { path: "src/a.txt", content });
  assert.equal(out.isError, false, out.content);
  assert.equal(readFileSync(box.path("src/a.txt"), "utf8"), content);
  const bytes = Buffer.byteLength(content);
  assert.notEqual(bytes, content.length);
  assert.match(
    out.content,
    new RegExp(
      `Created src/a\\.txt: ${bytes} bytes, 2 lines, sha256 [0-9a-f]{12} \\(read back from disk\\)`,
    ),
  );
});

test("write_file with an object as content is refused with the expected type, and creates no file", async () => {
  const box = sandbox();
  const out = await run(host(box), "write_file", { path: "x.json", content: { a: 1 } });
  assert.equal(out.code, "invalid_arguments");
  assert.match(out.content, /`content` must be a string, got an object/);
  assert.equal(existsSync(box.path("x.json")), false);
});

test("null is not a string: write_file with content null is refused and writes nothing", async () => {
  const box = sandbox();
  const out = await run(host(box), "write_file", { path: "x.txt", content: null });
  assert.equal(out.code, "invalid_arguments");
  assert.match(out.content, /`content` is null; it must be a string/);
  assert.equal(existsSync(box.path("x.txt")), false);
});

test("bash with an empty or missing command is refused before anything runs", async () => {
  const box = sandbox();
  const tools = host(box);
  const empty = await run(tools, "bash", { command: "" });
  assert.equal(empty.code, "invalid_arguments");
  assert.match(empty.content, /`command` must not be empty/);
  const missing = await run(tools, "bash", {});
  assert.match(missing.content, /Missing required argument `command`/);
  const nulled = await run(tools, "bash", { command: null });
  assert.match(nulled.content, /`command` is null/);
});

test("a path or command of only spaces is refused naming the key, and nothing is created or run", async () => {
  const box = sandbox();
  const tools = host(box, { mode: "approve_all" });
  const write = await run(tools, "write_file", { path: "   ", content: "a" });
  assert.equal(write.code, "invalid_arguments");
  assert.match(write.content, /`path` must not be blank/);
  assert.deepEqual(readdirSync(box.workspace), []);
  const bash = await run(tools, "bash", { command: "  \t " });
  assert.equal(bash.code, "invalid_arguments");
  assert.match(bash.content, /`command` must not be blank/);
  for (const name of ["read_file", "edit_file"]) {
    const out = await run(tools, name, { path: " ", old_string: "a", new_string: "b" });
    assert.equal(out.code, "invalid_arguments", `${name}: ${out.content}`);
    assert.match(out.content, /`path` must not be blank/);
  }
});

test("a path with a NUL byte is an invalid argument, not an internal fault", async () => {
  const box = sandbox();
  const tools = host(box, { mode: "approve_all" });
  const out = await run(tools, "write_file", { path: "x\u0000y", content: "a" });
  assert.equal(out.code, "invalid_arguments", out.content);
  assert.match(out.content, /NUL byte/);
  assert.deepEqual(readdirSync(box.workspace), []);
});

test("edit_file with an empty old_string or a null new_string is refused and the file is unchanged", async () => {
  const box = sandbox();
  writeFileSync(box.path("a.txt"), "one\n");
  const tools = host(box);
  await run(tools, "read_file", { path: "a.txt" });
  const empty = await run(tools, "edit_file", { path: "a.txt", old_string: "", new_string: "x" });
  assert.equal(empty.code, "invalid_arguments");
  assert.match(empty.content, /`old_string` must not be empty/);
  const nulled = await run(tools, "edit_file", {
    path: "a.txt",
    old_string: "one",
    new_string: null,
  });
  assert.match(nulled.content, /`new_string` is null/);
  assert.equal(readFileSync(box.path("a.txt"), "utf8"), "one\n");
});

test("an empty path is refused for every file tool", async () => {
  const box = sandbox();
  const tools = host(box);
  for (const [name, args] of [
    ["read_file", { path: "" }],
    ["write_file", { path: "", content: "x" }],
    ["edit_file", { path: "", old_string: "a", new_string: "b" }],
  ] as const) {
    const out = await run(tools, name, args);
    assert.equal(out.code, "invalid_arguments", name);
    assert.match(out.content, /`path` must not be empty/, name);
  }
});

test("an unknown tool is refused with the list of tools", async () => {
  const out = await run(host(sandbox()), "delete_everything", {});
  assert.equal(out.code, "invalid_arguments");
  assert.match(out.content, /Unknown tool `delete_everything`/);
  assert.match(out.content, /read_file, write_file, edit_file, bash, grep, glob, list_dir/);
});

test("extra unknown arguments are refused by name and nothing is written", async () => {
  const box = sandbox();
  const out = await run(host(box), "write_file", {
    path: "a.txt",
    content: "x",
    mode: "0755",
    force: true,
  });
  assert.equal(out.code, "invalid_arguments");
  assert.match(out.content, /Unknown arguments `mode`, `force` for write_file/);
  assert.equal(existsSync(box.path("a.txt")), false);
});

test("values are never coerced: a string where an integer belongs is refused", async () => {
  const box = sandbox();
  const out = await run(host(box), "write_file", {
    path: "a.txt",
    content: "x",
    part: "1",
    parts: 2,
  });
  assert.equal(out.code, "invalid_arguments");
  assert.match(out.content, /`part` must be an integer, got a string/);
  assert.equal(existsSync(box.path("a.txt")), false);
});

test("a number out of range or not whole is refused with the bound and the value received", async () => {
  const box = sandbox();
  writeFileSync(box.path("a.txt"), "one\n");
  const tools = host(box);
  const high = await run(tools, "read_file", { path: "a.txt", limit: 5000 });
  assert.equal(high.code, "invalid_arguments");
  assert.match(high.content, /`limit` must be <= 2000 \(got 5000\)/);
  const low = await run(tools, "read_file", { path: "a.txt", offset: 0 });
  assert.match(low.content, /`offset` must be >= 1 \(got 0\)/);
  const fraction = await run(tools, "read_file", { path: "a.txt", offset: 1.5 });
  assert.match(fraction.content, /`offset` must be an integer, got number 1\.5/);
});

test("a schema rule the plain-words messages do not cover is still enforced, in the schema library's words", async () => {
  const tool = defineTool({
    name: "probe",
    description: "test tool",
    parameters: v.strictObject({ id: v.pipe(v.string(), v.regex(/^[a-z]+$/)) }),
    mutates: false,
    execute: async () => ({ isError: false, content: "ran" }),
  });
  const out = await dispatch(
    "probe",
    { id: "ABC" },
    {
      tools: new Map([["probe", tool]]),
      context: contextFor(1000),
      signal: new AbortController().signal,
      turn: 1,
    },
  );
  assert.equal(out.code, "invalid_arguments");
  assert.match(out.content, /^probe was not run\. `id` .*\/\^\[a-z\]\+\$\/.*"ABC"/);
});

test("arguments that are not an object are refused", async () => {
  const tools = host(sandbox());
  const out = await tools.execute(
    { id: "c", name: "read_file", args: ["a.txt"] as unknown as Record<string, unknown>, turn: 1 },
    new AbortController().signal,
  );
  assert.equal(out.code, "invalid_arguments");
  assert.match(out.content, /must be a JSON object, got an array/);
});

function contextFor(outputCap: number, resultsDir = scratchDir("nex-results-")): ToolContext {
  return {
    results: createResultStore(resultsDir),
    limits: {
      outputCap,
      bashTimeoutMs: 1000,
      maxBashTimeoutMs: 1000,
      killGraceMs: 100,
      useRipgrep: false,
      env: {},
    },
    ledger: createLedger(),
  } as unknown as ToolContext;
}

function toolReturning(run: () => Promise<string>): Tool {
  return defineTool({
    name: "probe",
    description: "test tool",
    parameters: v.strictObject({}),
    mutates: false,
    execute: async () => ({ isError: false, content: await run() }),
  });
}

test("an exception thrown inside a tool comes back as an `internal` error result, never a throw", async () => {
  const tool = toolReturning(async () => {
    throw new TypeError("boom at line 3");
  });
  const out = await dispatch(
    "probe",
    {},
    {
      tools: new Map([["probe", tool]]),
      context: contextFor(1000),
      signal: new AbortController().signal,
      turn: 1,
    },
  );
  assert.equal(out.isError, true);
  assert.equal(out.code, "internal");
  assert.match(out.content, /boom at line 3/);
  assert.doesNotMatch(out.content, /at .*\.ts:\d+/);
});

test("a result larger than its share is stored whole; the model gets head, tail and where the rest is", async () => {
  const big = `HEAD\n${"x".repeat(10_000)}\nTAIL`;
  const dir = scratchDir("nex-results-");
  const out = await dispatch(
    "probe",
    {},
    {
      tools: new Map([["probe", toolReturning(async () => big)]]),
      context: contextFor(1000, dir),
      signal: new AbortController().signal,
      turn: 1,
    },
  );
  assert.match(
    out.content,
    /^\[The full result \(10,010 bytes, 3 lines\) is more than fits the context; stored whole as "@results\/[\w.-]+"\./,
  );
  assert.match(out.content, /\nHEAD\n/);
  assert.ok(out.content.endsWith("TAIL"));
  assert.match(out.content, /bytes cut from the middle/);
  assert.ok(Buffer.byteLength(out.content) <= 1000);
  const [stored] = readdirSync(dir);
  assert.equal(readFileSync(join(dir, stored ?? ""), "utf8"), big, "nothing is lost");
});

test("a result that cannot be stored keeps head and tail and says the middle is lost", async () => {
  const blocker = join(scratchDir("nex-results-"), "file");
  writeFileSync(blocker, "not a directory");
  const out = await dispatch(
    "probe",
    {},
    {
      tools: new Map([["probe", toolReturning(async () => `HEAD${"x".repeat(10_000)}TAIL`)]]),
      context: contextFor(1000, join(blocker, "results")),
      signal: new AbortController().signal,
      turn: 1,
    },
  );
  assert.ok(out.content.startsWith("HEAD"));
  assert.match(out.content, /The full result could not be stored \(.*\); its middle is lost\.\]$/);
});

test("the tool schemas the model sees match the golden file", () => {
  const specs = host(sandbox()).specs();
  const golden = join(import.meta.dirname, "tool-specs.golden.json");
  const expected = JSON.parse(readFileSync(golden, "utf8"));
  assert.deepEqual(specs, expected);
  // The model sees bytes: the keys come in the golden file's order too.
  assert.equal(JSON.stringify(specs), JSON.stringify(expected));
});
