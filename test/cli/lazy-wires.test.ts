// A wire's modules load only when a session speaks it: a plain run (Chat Completions) loads neither
// the Responses nor the Anthropic client. A module hook in the nex process lists what it loaded.
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
  const result = await runNex(["run", "--base-url", `${stub.url}/v1`, "--model", "m", "hi"], {
    cwd: box.workspace,
    env: {
      ...box.env,
      OPENAI_API_KEY: "sk-lazy",
      NEX_TEST_LOADED: loaded,
      NODE_OPTIONS: `--import=${pathToFileURL(hook).href}`,
    },
  });
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
  assert.ok(loads(plain, "tools/search/index.ts"), "the hook saw the tools load");
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
