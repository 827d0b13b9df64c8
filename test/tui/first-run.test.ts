// The chat's first run with nothing configured: a short set-up in the real terminal, the config
// file written (no key in it), then the chat opens on the chosen model and answers.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { keys, spawnPty } from "../support/pty.ts";
import { scratchDir } from "../support/scratch-dir.ts";
import { json, openaiText, startStubEndpoint } from "../support/stub-endpoint.ts";

const nexBin = resolve(import.meta.dirname, "..", "..", "bin", "nex.js");

test("nex with no endpoint configured asks four questions, writes the config, then chats", async (t) => {
  const stub = await startStubEndpoint({
    routes: {
      "GET /v1/models": json({
        object: "list",
        data: [{ id: "qwen-small" }, { id: "qwen-coder" }],
      }),
    },
    handler: () => openaiText("Hello from the chosen model."),
  });
  const dir = scratchDir("nex-first-run-");
  const workspace = join(dir, "ws");
  mkdirSync(workspace);
  const pty = spawnPty(process.execPath, [nexBin], {
    cols: 100,
    rows: 30,
    cwd: workspace,
    env: {
      PATH: process.env.PATH ?? "",
      TERM: "xterm-256color",
      HOME: dir,
      XDG_DATA_HOME: join(dir, "data"),
      XDG_CONFIG_HOME: join(dir, "config"),
      LOCAL_KEY: "secret-local-key",
    },
  });
  t.after(async () => {
    pty.kill();
    await stub.close();
  });
  await pty.waitFor("Which server will nex talk to?");
  pty.write(`1${keys.enter}`);
  await pty.waitFor("Base URL");
  pty.write(`${stub.url}/v1${keys.enter}`);
  await pty.waitFor("Environment variable that holds the API key");
  pty.write(`LOCAL_KEY${keys.enter}`);
  await pty.waitFor("LOCAL_KEY is set.");
  await pty.waitFor("2. qwen-coder");
  pty.write(`2${keys.enter}`);
  await pty.waitFor("/help for commands");

  const configPath = join(dir, "config", "nex", "config.json");
  const written = readFileSync(configPath, "utf8");
  assert.deepEqual(JSON.parse(written), {
    provider: "openai",
    baseUrl: `${stub.url}/v1`,
    apiKeyEnv: "LOCAL_KEY",
    model: "qwen-coder",
  });
  assert.ok(!written.includes("secret-local-key"), "the key itself is never written");

  // The chat turns raw mode on just after its first frame: keys typed before would reach it as a line.
  await pty.readyForKeys();
  pty.write(`hi${keys.enter}`);
  await pty.waitFor("Hello from the chosen model.");
  const chat = stub.requests.find((r) => r.path.endsWith("/chat/completions"));
  assert.ok(chat);
  assert.equal((chat.body as { model: string }).model, "qwen-coder");
  assert.equal(chat.headers.authorization, "Bearer secret-local-key");
});

test("nex run with nothing configured never asks: it fails with its usual clear error", async () => {
  const dir = scratchDir("nex-first-run-");
  const pty = spawnPty(process.execPath, [nexBin, "run", "hello"], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? "",
      TERM: "xterm-256color",
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, "config"),
      XDG_DATA_HOME: join(dir, "data"),
    },
  });
  const code = await pty.exited;
  assert.notEqual(code, 0);
  assert.doesNotMatch(pty.history(), /Which server/);
  assert.ok(!existsSync(join(dir, "config", "nex", "config.json")));
});
