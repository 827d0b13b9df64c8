import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { scratchDir } from "../support/scratch-dir.ts";
import {
  anthropicToolUse,
  openaiText,
  openaiToolCall,
  startStubEndpoint,
  status,
} from "../support/stub-endpoint.ts";

test("stub endpoint plays queued scripts in order and logs each request as received", async () => {
  const stub = await startStubEndpoint();
  try {
    stub.enqueue(status(429, { headers: { "retry-after": "2" } }), openaiText("hi"));
    const first = await fetch(`${stub.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer sk-visible", "content-type": "application/json" },
      body: JSON.stringify({ model: "m" }),
    });
    assert.equal(first.status, 429);
    assert.equal(first.headers.get("retry-after"), "2");
    const second = await fetch(`${stub.url}/v1/chat/completions`, { method: "POST", body: "{}" });
    const text = await second.text();
    assert.match(text, /"content":"hi"/);
    assert.match(text, /data: \[DONE\]\n\n$/);
    assert.equal(stub.requests.length, 2);
    assert.equal(stub.requests[0]?.headers.authorization, "Bearer sk-visible");
    assert.deepEqual(stub.requests[0]?.body, { model: "m" });
    const third = await fetch(`${stub.url}/v1/models`);
    assert.equal(third.status, 404, "an unscripted request gets a 404 that names it");
    assert.match(await third.text(), /no script for GET \/v1\/models/);
  } finally {
    await stub.close();
  }
});

test("stub endpoint cuts a tool call mid-arguments with no terminator", async () => {
  const stub = await startStubEndpoint();
  try {
    stub.enqueue(
      openaiToolCall({ name: "write_file", args: { path: "a", content: "xyz" }, cutAt: 10 }),
    );
    stub.enqueue(anthropicToolUse({ name: "write_file", input: { path: "a" }, cutAt: 5 }));
    const openai = await (
      await fetch(`${stub.url}/v1/chat/completions`, { method: "POST" })
    ).text();
    assert.doesNotMatch(openai, /\[DONE\]|finish_reason":"/);
    assert.match(openai, /"arguments":"\{\\"path\\":\\"a/);
    const anthropic = await (await fetch(`${stub.url}/v1/messages`, { method: "POST" })).text();
    assert.doesNotMatch(anthropic, /message_stop|message_delta/);
  } finally {
    await stub.close();
  }
});

test("stub server runs as a child process from a script file and prints its URL", async () => {
  const dir = scratchDir("nex-stub-");
  const scriptPath = join(dir, "script.json");
  const logPath = join(dir, "requests.jsonl");
  writeFileSync(scriptPath, JSON.stringify({ scripts: [openaiText("from child")] }));
  const child = spawn(
    process.execPath,
    [join(import.meta.dirname, "../support/stub-server-main.ts"), scriptPath, logPath],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("\n")) resolve(out.trim());
      });
      child.on("exit", (code) => reject(new Error(`stub exited ${code}`)));
    });
    const body = await (
      await fetch(`${url}/v1/chat/completions`, { method: "POST", body: '{"a":1}' })
    ).text();
    assert.match(body, /"content":" chi"/);
    const queued = await fetch(`${url}/__stub/enqueue`, {
      method: "POST",
      body: JSON.stringify([status(418)]),
    });
    assert.equal(queued.status, 200);
    assert.equal(
      (await fetch(`${url}/v1/models`)).status,
      404,
      "a discovery probe leaves the queue alone",
    );
    assert.equal((await fetch(`${url}/v1/chat/completions`, { method: "POST" })).status, 418);
    const listed = (await (await fetch(`${url}/__stub/requests`)).json()) as { path: string }[];
    assert.deepEqual(
      listed.map((request) => request.path),
      ["/v1/chat/completions", "/v1/models", "/v1/chat/completions"],
    );
    const logged = readFileSync(logPath, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    assert.deepEqual(logged[0].body, { a: 1 });
  } finally {
    child.kill("SIGTERM");
  }
});
