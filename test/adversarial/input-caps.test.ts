// Input another party writes is read with bounded memory: 300 MB in one line, on stream-json's
// stdin, appended to the inbox without a newline, or on ACP's stdin, is dropped as it arrives and
// reported; the valid line after it is still read. Peak memory (VmHWM) is measured in the real nex
// process while the 300 MB arrive.
import assert from "node:assert/strict";
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import {
  appendFileSync,
  closeSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { makeSandbox, startNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall, status } from "../support/stub-scripts.ts";
import { until } from "../support/until.ts";

const nexBin = resolve(import.meta.dirname, "..", "..", "bin", "nex.js");
const HUGE = 300 * 1024 * 1024;
const PIECE = Buffer.alloc(1024 * 1024, "x");
// Far below what holding the line costs (the 300 MB, then a string of it: 864 MiB was seen) and
// well above nex's own footprint.
const PEAK_LIMIT = 400 * 1024 * 1024;

/** Peak resident memory of a live process, in bytes. */
// Read at once (no await before it): a caller sampling a process that is about to exit gets its figure.
// A process that has exited but is not yet reaped (a zombie) has no VmHWM: 0, never NaN, which would
// poison every Math.max after it.
async function peakOf(pid: number): Promise<number> {
  const kib = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return kib === undefined ? 0 : Number(kib) * 1024;
}

/** Writes `HUGE` bytes with no newline into a pipe, as fast as the reader takes them. */
async function flood(
  child: ChildProcessWithoutNullStreams,
  whileReading: () => void = () => {},
): Promise<void> {
  child.stdin.on("error", () => {});
  for (let sent = 0; sent < HUGE; sent += PIECE.length) {
    // A reader that stopped reading (closed its end) ends the flood.
    if (child.stdin.destroyed || child.exitCode !== null) return;
    if (!child.stdin.write(PIECE))
      await new Promise((done) => {
        child.stdin.once("drain", done);
        child.stdin.once("close", done);
        child.once("exit", done);
      });
    // The reader just took a pipe's worth: it is alive whatever the machine's speed.
    whileReading();
  }
}

function started(args: string[], cwd: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [nexBin, ...args], {
    cwd,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((done) => child.on("close", (code) => done(code)));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

test("stream-json: a 300 MB stdin line is skipped with bounded memory and the next message still runs", {
  timeout: 600_000,
}, async () => {
  const stub = await startStubEndpoint({ scripts: [openaiText("Answered the valid one.")] });
  const box = makeSandbox();
  const nex = started(
    [
      "run",
      "--model",
      "stub-model",
      "--base-url",
      `${stub.url}/v1`,
      "--data-dir",
      box.dataDir,
      "--input-format",
      "stream-json",
      "--output-format",
      "stream-json",
    ],
    box.workspace,
    { ...box.env, OPENAI_API_KEY: "k" },
  );
  try {
    await flood(nex.child);
    nex.child.stdin.write(
      `\n${JSON.stringify({ type: "user", message: { role: "user", content: "the valid one" } })}\n`,
    );
    await until(() => nex.stdout().includes('"type":"result"'), "the result");
    const peak = await peakOf(nex.child.pid ?? 0);
    nex.child.stdin.end();
    assert.equal(await nex.exited, 0, nex.stderr());
    assert.match(
      nex.stderr(),
      /stdin line 1 is longer than 16 MiB \(314572800 bytes\) and was skipped/,
    );
    assert.match(nex.stdout(), /"subtype":"input_error"/);
    assert.match(nex.stdout(), /Answered the valid one/);
    const sent = JSON.stringify(stub.requestsTo("/v1/chat/completions")[0]?.body);
    assert.match(sent, /the valid one/);
    assert.ok(peak < PEAK_LIMIT, `peak memory ${Math.round(peak / 1048576)} MiB`);
    console.log(`stream-json: peak ${Math.round(peak / 1048576)} MiB while 300 MB arrived`);
  } finally {
    nex.child.kill();
    await stub.close();
  }
});

test("--inbox: 300 MB appended without a newline is skipped with bounded memory; the message after it arrives", {
  timeout: 600_000,
}, async () => {
  let release: () => void = () => {};
  const released = new Promise<void>((done) => {
    release = done;
  });
  let firstSeen: () => void = () => {};
  const first = new Promise<void>((done) => {
    firstSeen = done;
  });
  let chats = 0;
  const stub = await startStubEndpoint({
    handler: async (request) => {
      if (!request.path.endsWith("/chat/completions")) return status(404);
      chats += 1;
      if (chats === 1) {
        firstSeen();
        await released;
        return openaiToolCall({ name: "list_dir", args: { path: "." } });
      }
      return openaiText("Saw it.");
    },
  });
  const box = makeSandbox();
  const inbox = join(box.workspace, "..", "inbox.jsonl");
  writeFileSync(inbox, "");
  const nex = startNex(
    [
      "run",
      "--model",
      "stub-model",
      "--base-url",
      `${stub.url}/v1`,
      "--data-dir",
      box.dataDir,
      "--inbox",
      inbox,
      "look around",
    ],
    { cwd: box.workspace, env: { ...box.env, OPENAI_API_KEY: "k" } },
  );
  try {
    await first;
    const fd = openSync(inbox, "a");
    try {
      for (let sent = 0; sent < HUGE; sent += PIECE.length) writeSync(fd, PIECE);
    } finally {
      closeSync(fd);
    }
    appendFileSync(inbox, `\n${JSON.stringify({ message: "also update the changelog" })}\n`);
    await until(() => nex.stderrSoFar().includes("inbox line 1 is longer"), "the report");
    const peak = await peakOf(nex.child.pid ?? 0);
    release();
    const result = await nex.done;
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stderr,
      /inbox line 1 is longer than 16 MiB \(314572800 bytes\) and was skipped/,
    );
    const second = JSON.stringify(stub.requestsTo("/v1/chat/completions")[1]?.body);
    assert.match(second, /also update the changelog/);
    assert.ok(peak < PEAK_LIMIT, `peak memory ${Math.round(peak / 1048576)} MiB`);
    console.log(`inbox: peak ${Math.round(peak / 1048576)} MiB while 300 MB arrived`);
  } finally {
    release();
    nex.child.kill();
    rmSync(inbox, { force: true });
    await stub.close();
  }
});

test("ACP: a 300 MB message is skipped with bounded memory and the next request is answered", {
  timeout: 600_000,
}, async () => {
  const box = makeSandbox();
  const nex = started(["acp", "--model", "stub-model", "--data-dir", box.dataDir], box.workspace, {
    ...box.env,
    OPENAI_API_KEY: "k",
  });
  try {
    await flood(nex.child);
    nex.child.stdin.write(
      `\n${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })}\n`,
    );
    await until(() => nex.stdout().includes('"id":1'), "the answer to initialize");
    const peak = await peakOf(nex.child.pid ?? 0);
    assert.match(nex.stdout(), /"protocolVersion":1/);
    assert.match(
      nex.stderr(),
      /message 1 is longer than 16 MiB \(314572800 bytes\) and was skipped/,
    );
    assert.ok(peak < PEAK_LIMIT, `peak memory ${Math.round(peak / 1048576)} MiB`);
    console.log(`acp: peak ${Math.round(peak / 1048576)} MiB while 300 MB arrived`);
  } finally {
    nex.child.stdin.end();
    nex.child.kill();
    await nex.exited;
  }
});

test("a 300 MB task piped to `nex run -` is refused with bounded memory, before any request", {
  timeout: 600_000,
}, async () => {
  const stub = await startStubEndpoint({ scripts: [openaiText("never")] });
  const box = makeSandbox();
  const nex = started(
    [
      "run",
      "--model",
      "stub-model",
      "--base-url",
      `${stub.url}/v1`,
      "--data-dir",
      box.dataDir,
      "-",
    ],
    box.workspace,
    { ...box.env, OPENAI_API_KEY: "k" },
  );
  let peak = 0;
  const sample = () =>
    peakOf(nex.child.pid ?? 0).then(
      (value) => {
        peak = Math.max(peak, value);
      },
      () => {},
    );
  const sampler = setInterval(sample, 50);
  try {
    await flood(nex.child, () => void sample()).catch(() => {});
    nex.child.stdin.end();
    const code = await nex.exited;
    assert.notEqual(code, 0);
    assert.match(
      nex.stderr(),
      /The task read from stdin is larger than 16 MiB; nex stopped reading it/,
    );
    assert.equal(stub.requestsTo("/v1/chat/completions").length, 0);
    assert.ok(peak > 0, "memory was sampled while nex ran");
    assert.ok(peak < PEAK_LIMIT, `peak memory ${Math.round(peak / 1048576)} MiB`);
    console.log(
      `task on stdin: peak ${Math.round(peak / 1048576)} MiB (sampled) while it was refused`,
    );
  } finally {
    clearInterval(sampler);
    nex.child.kill();
    await stub.close();
  }
});
