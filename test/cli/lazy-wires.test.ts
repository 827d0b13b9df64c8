// A capability's modules load only when a session uses it: a plain run (Chat Completions, one
// answer, no tool called) loads neither the Responses nor the Anthropic client, nor the tool host's
// engine, nor any mode or tool machinery it does not use; every module costs start-up time. A module
// hook in the nex process lists what it loaded.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { makeSandbox, runNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import {
  openaiText,
  openaiToolCall,
  responsesStream,
  type Script,
} from "../support/stub-scripts.ts";

const HOOK = `
import { registerHooks } from "node:module";
import { appendFileSync } from "node:fs";
const seen = new Set();
registerHooks({ resolve(specifier, context, next) { const found = next(specifier, context); seen.add(found.url); return found; } });
process.on("exit", () => appendFileSync(process.env.NEX_TEST_LOADED, [...seen].join("\\n") + "\\n"));
`;

/** Runs one `nex run` answered by `script`; returns the module URLs the process loaded. */
async function loadedBy(
  script: Script | Script[],
  config: Record<string, unknown>,
  flags: string[] = [],
): Promise<string[]> {
  const stub = await startStubEndpoint({ scripts: Array.isArray(script) ? script : [script] });
  const box = makeSandbox();
  const hook = join(box.env.HOME as string, "hook.mjs");
  writeFileSync(hook, HOOK);
  const loaded = join(box.env.HOME as string, "loaded.txt");
  writeFileSync(loaded, "");
  const dir = join(box.env.XDG_CONFIG_HOME as string, "nex");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "config.json"), JSON.stringify(config));
  const result = await runNex(
    ["run", ...flags, "--base-url", `${stub.url}/v1`, "--model", "m", "hi"],
    {
      cwd: box.workspace,
      env: {
        ...box.env,
        OPENAI_API_KEY: "sk-lazy",
        NEX_TEST_LOADED: loaded,
        NODE_OPTIONS: `--import=${pathToFileURL(hook).href}`,
      },
    },
  );
  await stub.close();
  assert.equal(result.code, 0, result.stdout + result.stderr);
  return readFileSync(loaded, "utf8").split("\n");
}

const wire = (urls: string[], file: string) =>
  urls.some((url) => /\/providers\/(\w+\/)?/.test(url) && url.endsWith(`/${file}`));

test("a plain run loads neither the Responses nor the Anthropic wire", async () => {
  const urls = await loadedBy(openaiText("hello"), {});
  assert.ok(wire(urls, "openai.ts"), "the hook saw the chat client load");
  assert.ok(!wire(urls, "responses.ts"), "responses.ts was loaded by a plain run");
  assert.ok(!wire(urls, "responses-wire.ts"), "responses-wire.ts was loaded by a plain run");
  assert.ok(!wire(urls, "anthropic.ts"), "anthropic.ts was loaded by a plain run");
});

test('a run with "api": "responses" loads the Responses wire on its first request', async () => {
  const urls = await loadedBy(responsesStream({ text: "hello" }), { api: "responses" });
  assert.ok(wire(urls, "responses.ts"));
});

const loads = (urls: string[], file: string) => urls.some((url) => url.endsWith(`/src/${file}`));

test("a plain run loads neither the file search's engine nor the web client; a glob loads the search on its call", async () => {
  const plain = await loadedBy(openaiText("hello"), {});
  assert.ok(loads(plain, "tools/builtin/glob.ts"), "the hook saw the tools load");
  assert.ok(!loads(plain, "tools/search/file-search.ts"), "the search engine loaded unused");
  assert.ok(!loads(plain, "web/web-client.ts"), "the web client loaded unused");
  const globbed = await loadedBy(
    [openaiToolCall({ name: "glob", args: { pattern: "*.txt" } }), openaiText("done")],
    {},
  );
  assert.ok(loads(globbed, "tools/search/file-search.ts"), "a glob ran without its engine");
});

test("a plain run loads none of the last tools' machinery: keyless search, arXiv, deep research, chunk_map, the reader", async () => {
  const urls = await loadedBy(openaiText("hello"), {});
  for (const file of [
    "web/keyless-backends.ts",
    "web/arxiv.ts",
    "web/deep-research.ts",
    "subagents/chunk-map.ts",
    "subagents/reader-run.ts",
  ])
    assert.ok(
      !urls.some((url) => url.endsWith(`/src/${file}`)),
      `${file} was loaded by a plain run`,
    );
  assert.ok(
    urls.some((url) => url.endsWith("/src/runtime/web/scholar-tools.ts")),
    "the hook saw the tools' definitions",
  );
});

/** What a one-answer run that calls no tool has no use for, by capability (paths under src/). */
const UNUSED_BY_A_PLAIN_RUN: Record<string, string[]> = {
  "the tool host's engine (permissions, workspace, the call runner)": [
    "tools/host/host-engine.ts",
    "tools/permissions/index.ts",
  ],
  "shell commands and background jobs": ["tools/shell/index.ts", "tools/sandbox/launch.ts"],
  "undo and shadow git": ["tools/undo/index.ts"],
  "file safety's machinery (read-before-write, edit matching, globs)": ["tools/files/index.ts"],
  "git's readers (hooks folder, settings)": ["tools/sandbox/git-plants.ts"],
  "the sandbox network filter's forwarder": ["tools/sandbox/network-proxy/forwarder.ts"],
  compaction: ["runtime/context/compactor.ts"],
  "JSON Schema validation (MCP, skills, --output-schema)": ["tools/schema/index.ts"],
  "the Anthropic and Responses wires": [
    "providers/anthropic/index.ts",
    "providers/responses/index.ts",
  ],
  "sub-agents": ["runtime/subagents/child-agent.ts"],
  "the web client": ["web/index.ts"],
  "MCP's client": ["mcp/index.ts"],
  "hooks, skills and custom commands when none is configured": [
    "runtime/hooks/index.ts",
    "runtime/extensions/skills.ts",
    "runtime/extensions/custom-commands.ts",
  ],
  "resuming a session": ["runtime/history/locate-session.ts"],
  "other modes: the chat, doctor, ACP, stream-json, chat files, first-run set-up": [
    "tui/index.ts",
    "runtime/doctor/index.ts",
    "acp/index.ts",
    "headless/stream-json/run.ts",
    "headless/chat-files/index.ts",
    "runtime/config/first-run.ts",
  ],
};

test("a plain run loads no capability it does not use: tool engine, shell, undo, schemas, other wires, sub-agents, web, MCP, hooks, other modes", async () => {
  const urls = await loadedBy(openaiText("hello"), {});
  assert.ok(loads(urls, "tools/builtin/bash.ts"), "the hook saw the tools' definitions");
  const loaded = Object.entries(UNUSED_BY_A_PLAIN_RUN).flatMap(([what, files]) =>
    files.filter((file) => loads(urls, file)).map((file) => `${file} (${what})`),
  );
  assert.deepEqual(loaded, []);
  assert.ok(!urls.some((url) => url.includes("/node_modules/minimatch/")), "minimatch loaded");
});

test("a tool's first call loads the engine, which checks and runs it", async () => {
  const urls = await loadedBy(
    [openaiToolCall({ name: "glob", args: { pattern: "*.txt" } }), openaiText("done")],
    {},
  );
  assert.ok(loads(urls, "tools/host/host-engine.ts"), "a call ran without the engine");
  assert.ok(loads(urls, "tools/permissions/index.ts"), "a call ran unchecked");
});

test("a run of file writes and reads loads neither the file search, the process runner, the shadow git nor undo's restore machinery, and reports its changed files", async () => {
  const urls = await loadedBy(
    [
      openaiToolCall({ name: "write_file", args: { path: "a.txt", content: "a\n" }, id: "w" }),
      openaiToolCall({ name: "read_file", args: { path: "a.txt" }, id: "r" }),
      openaiText("done"),
    ],
    {},
    ["--yes"],
  );
  assert.ok(loads(urls, "tools/builtin/file-writer.ts"), "the write ran without its writer");
  assert.ok(loads(urls, "tools/undo/run-changes.ts"), "the run's changed files were not measured");
  for (const file of [
    "tools/search/index.ts",
    "tools/undo/undo.ts",
    "tools/undo/undo-apply.ts",
    // File tools keep before-images; the shadow repository snapshots only around commands.
    "tools/undo/shadow-git-repository.ts",
    "tools/shell/index.ts",
    "tools/permissions/command-check.ts",
  ])
    assert.ok(!loads(urls, file), `${file} was loaded by file writes and reads`);
  assert.ok(
    !urls.some((url) => url.includes("/node_modules/minimatch/")),
    "minimatch was loaded by file writes and reads (no rule, no search)",
  );
  // Outside a git repository no process is started: git's readers load no process runner either.
  assert.ok(!urls.includes("node:child_process"), "node:child_process was loaded by file turns");
});
