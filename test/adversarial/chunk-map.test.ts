// chunk_map through the real `nex run` against the stub endpoint on an 8k window: a large file or a
// stored result cut into chunks at line ends, one request each (no tools, one turn), every line in
// exactly one chunk, results stored whole; the workspace guard and the secret scrubber hold; a
// failing endpoint stops it after a few chunks (no request storm).
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, type Sandbox, startNex } from "../support/cli.ts";
import {
  type LoggedRequest,
  openaiText,
  openaiToolCall,
  type StubHandler,
  startStubEndpoint,
  status,
} from "../support/stub-endpoint.ts";

const CHUNK_SYSTEM = "one instruction to one chunk";
const KEY = "sk-chunkmap-SECRET-5a0e77c1";

type Body = { messages?: Array<{ role: string; content: unknown }>; tools?: unknown[] };
const messagesOf = (request: LoggedRequest) => (request.body as Body).messages ?? [];
const systemOf = (request: LoggedRequest) => String(messagesOf(request)[0]?.content ?? "");
const userOf = (request: LoggedRequest) =>
  String(messagesOf(request).findLast((m) => m.role === "user")?.content ?? "");
const toolResult = (request: LoggedRequest) =>
  String(messagesOf(request).findLast((m) => m.role === "tool")?.content ?? "");

async function runWith(box: Sandbox, handler: StubHandler) {
  const dir = join(box.env.XDG_CONFIG_HOME ?? "", "nex");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({ models: { "stub-model": { contextWindow: 8192, maxOutput: 1024 } } }),
  );
  const stub = await startStubEndpoint({ handler });
  const result = await startNex(
    ["run", "--yes", "--model", "stub-model", "--base-url", `${stub.url}/v1`, "go"],
    { cwd: box.workspace, env: { ...box.env, OPENAI_API_KEY: KEY } },
  ).done;
  await stub.close();
  return { result, requests: stub.requestsTo("/v1/chat/completions") };
}

function numbered(lines: number): string {
  let out = "";
  for (let i = 1; i <= lines; i++) out += `row ${i} ${"·".repeat(30)}\n`;
  return out;
}

test("chunk_map over a 48 KB file: one tool-less request per chunk, every line in exactly one, results stored", {
  timeout: 180_000,
}, async () => {
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "big.log"), numbered(1200));
  const { result, requests } = await runWith(box, (request) => {
    if (systemOf(request).includes(CHUNK_SYSTEM)) {
      const range = /lines (\d+)-(\d+)/.exec(userOf(request));
      return openaiText(`rows ${range?.[1]} to ${range?.[2]} seen`);
    }
    if (!toolResult(request))
      return openaiToolCall({
        name: "chunk_map",
        args: { path: "big.log", instruction: "list the rows" },
      });
    return openaiText("done");
  });
  assert.equal(result.code, 0, result.stderr);
  const chunks = requests.filter((request) => systemOf(request).includes(CHUNK_SYSTEM));
  // Each chunk shows as its progress line, not as a sub-agent that "finished in 1 turn(s)".
  assert.match(result.stderr, /chunk_map: chunk 1 of \d+ \(big\.log lines 1-\d+\)/);
  assert.doesNotMatch(result.stderr, /chunk\] finished in/);
  assert.ok(chunks.length >= 4 && chunks.length <= 10, `${chunks.length} chunks`);
  for (const chunk of chunks) {
    assert.equal((chunk.body as Body).tools, undefined, "a chunk's request offers no tools");
    assert.ok(chunk.rawBody.length < 8192 * 4, "each chunk's request fits the 8k window");
  }
  // Every row appears in exactly one chunk.
  const seen = chunks.flatMap((chunk) =>
    [...userOf(chunk).matchAll(/^row (\d+) /gm)].map((m) => Number(m[1])),
  );
  assert.deepEqual(
    seen.sort((a, b) => a - b),
    Array.from({ length: 1200 }, (_, i) => i + 1),
  );
  const back = toolResult(requests.at(-1) as LoggedRequest);
  assert.match(
    back,
    new RegExp(
      `chunk_map went through ${chunks.length} of ${chunks.length} chunk\\(s\\) \\(0 failed\\)`,
    ),
  );
  assert.match(back, /## 1\. big\.log lines 1-\d+\nrows 1 to \d+ seen/);
  const name = /@results\/[\w.-]*\w/.exec(back)?.[0] ?? "";
  const dir = join(box.dataDir, "nex", "results");
  const stored = readdirSync(dir).flatMap((s) =>
    readdirSync(join(dir, s)).map((f) => join(dir, s, f)),
  );
  const file = stored.find((path) => path.endsWith(name.slice("@results/".length)));
  assert.ok(file, `stored ${name}`);
  assert.match(readFileSync(file, "utf8"), /^Task: list the rows\n/);
});

test("chunk_map over a stored result (@results/…) from an earlier call; a path outside the workspace is refused", {
  timeout: 180_000,
}, async () => {
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "big.txt"), numbered(2000));
  let stored = "";
  let step = 0;
  const { result, requests } = await runWith(box, (request) => {
    if (systemOf(request).includes(CHUNK_SYSTEM)) return openaiText("ok");
    step++;
    if (step === 1) return openaiToolCall({ name: "bash", args: { command: "cat big.txt" } });
    if (step === 2) {
      stored = /@results\/[\w.-]*\w/.exec(toolResult(request))?.[0] ?? "";
      return openaiToolCall({ name: "chunk_map", args: { path: stored, instruction: "x" } });
    }
    if (step === 3)
      return openaiToolCall({ name: "chunk_map", args: { path: "/etc/passwd", instruction: "x" } });
    return openaiText("done");
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(stored, /^@results\//);
  const bodies = requests.filter((r) => !systemOf(r).includes(CHUNK_SYSTEM)).map(toolResult);
  assert.match(bodies[2] ?? "", /chunk_map went through \d+ of \d+ chunk\(s\) \(0 failed\)/);
  assert.match(bodies[2] ?? "", new RegExp(`## 1\\. ${stored.replace(/[.]/g, "\\.")} lines 1-`));
  assert.match(bodies[3] ?? "", /outside the workspace|not allowed|denied/i);
  assert.ok(
    !requests.some((r) => r.rawBody.includes("root:x:0:0")),
    "/etc/passwd never reached the model",
  );
});

test("chunk_map, summarize and reader never send nex's own key to the model, even when the file holds it", {
  timeout: 120_000,
}, async () => {
  const box = makeSandbox();
  writeFileSync(
    join(box.workspace, "leaky.env"),
    `${numbered(300)}OPENAI_API_KEY=${KEY}\n${numbered(300)}`,
  );
  const calls = [
    { name: "chunk_map", args: { path: "leaky.env", instruction: "x" } },
    { name: "summarize", args: { path: "leaky.env" } },
    { name: "reader", args: { path: "leaky.env", task: "x" } },
  ];
  let step = 0;
  let children = 0;
  const { result, requests } = await runWith(box, (request) => {
    if (!systemOf(request).startsWith("You are nex")) {
      children++;
      return openaiText("fine");
    }
    const next = calls[step++];
    return next ? openaiToolCall(next) : openaiText("done");
  });
  assert.equal(result.code, 0, result.stderr);
  assert.ok(children >= 3, `${children} child requests`);
  for (const request of requests)
    assert.ok(!request.rawBody.includes(KEY), `request ${request.index} carries the key`);
});

test("chunk_map stops starting chunks when the endpoint fails them in a row: no request storm", {
  timeout: 180_000,
}, async () => {
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "big.log"), numbered(3000));
  let chunkRequests = 0;
  const { result, requests } = await runWith(box, (request) => {
    if (systemOf(request).includes(CHUNK_SYSTEM)) {
      chunkRequests++;
      return status(400, { body: { error: { message: "stub: bad request" } } });
    }
    if (!toolResult(request))
      return openaiToolCall({ name: "chunk_map", args: { path: "big.log", instruction: "x" } });
    return openaiText("done");
  });
  assert.equal(result.code, 0, result.stderr);
  assert.ok(chunkRequests <= 5, `${chunkRequests} chunk requests`);
  assert.match(
    toolResult(requests.at(-1) as LoggedRequest),
    /Stopped: the endpoint failed 3 chunks in a row/,
  );
});
