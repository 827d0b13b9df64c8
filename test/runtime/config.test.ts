import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ConfigError, resolveConfig } from "../../src/runtime/config/config.ts";
import { DEFAULT_CONTEXT_WINDOW, resolveLimits } from "../../src/runtime/config/model-registry.ts";
import { scratchDir } from "../support/scratch-dir.ts";

function home(): { dir: string; env: Record<string, string> } {
  const dir = scratchDir("nex-config-");
  return {
    dir,
    env: { HOME: dir, XDG_CONFIG_HOME: join(dir, "config"), XDG_DATA_HOME: join(dir, "data") },
  };
}

test("the endpoint and key come from the conventions users already have", () => {
  const { dir, env } = home();
  const config = resolveConfig(
    {},
    {
      ...env,
      OPENAI_BASE_URL: "http://127.0.0.1:8000/v1/",
      OPENAI_API_KEY: "k",
      NEX_MODEL: "qwen3-coder",
    },
    dir,
  );
  assert.equal(config.baseUrl, "http://127.0.0.1:8000/v1");
  assert.equal(config.apiKey, "k");
  assert.equal(config.model, "qwen3-coder");
  assert.equal(config.dataDir, join(dir, "data", "nex"));
});

test("flags win over the environment, which wins over the config file", () => {
  const { dir, env } = home();
  mkdirSync(join(dir, "config", "nex"), { recursive: true });
  writeFileSync(
    join(dir, "config", "nex", "config.json"),
    JSON.stringify({ model: "from-file", baseUrl: "http://file/v1" }),
  );
  const config = resolveConfig(
    { model: "from-flag" },
    { ...env, OPENAI_BASE_URL: "http://env/v1" },
    dir,
  );
  assert.equal(config.model, "from-flag");
  assert.equal(config.baseUrl, "http://env/v1");
});

test("a config file with a setting of the wrong kind is refused with the setting named", () => {
  const { dir, env } = home();
  mkdirSync(join(dir, "config", "nex"), { recursive: true });
  writeFileSync(join(dir, "config", "nex", "config.json"), JSON.stringify({ maxTurns: "ten" }));
  assert.throws(
    () => resolveConfig({}, env, dir),
    (error: unknown) => error instanceof ConfigError && /maxTurns/.test(error.message),
  );
});

test("an unknown setting in the config file (another version's, a typo) is a notice naming it, not a refusal", () => {
  const { dir, env } = home();
  mkdirSync(join(dir, "config", "nex"), { recursive: true });
  writeFileSync(
    join(dir, "config", "nex", "config.json"),
    JSON.stringify({
      maxTurns: 7,
      maxTurn: 3,
      theme: "dark",
      models: { m: { contextWindow: 65536, contextWindw: 1 } },
    }),
  );
  const config = resolveConfig({}, env, dir);
  assert.equal(config.maxTurns, 7);
  assert.deepEqual(
    [...config.notices].sort(),
    [
      `The config file ${join(dir, "config", "nex", "config.json")}: unknown setting /maxTurn ignored (did you mean "maxTurns"?).`,
      `The config file ${join(dir, "config", "nex", "config.json")}: unknown setting /theme ignored.`,
      `The config file ${join(dir, "config", "nex", "config.json")}: unknown setting /models/m/contextWindw ignored (did you mean "contextWindow"?).`,
    ].sort(),
  );
  // A known setting with a wrong value is still refused, even beside an unknown one.
  writeFileSync(
    join(dir, "config", "nex", "config.json"),
    JSON.stringify({ maxTurns: "ten", theme: "dark" }),
  );
  assert.throws(
    () => resolveConfig({}, env, dir),
    (error: unknown) => error instanceof ConfigError && /maxTurns/.test(error.message),
  );
});

test("a base URL with credentials in it is refused without echoing them", () => {
  const { dir, env } = home();
  assert.throws(
    () => resolveConfig({ baseUrl: "http://user:secretpass@host/v1" }, env, dir),
    (error: unknown) => error instanceof ConfigError && !error.message.includes("secretpass"),
  );
});

test("anthropic takes its own key and base URL variables", () => {
  const { dir, env } = home();
  const config = resolveConfig(
    { provider: "anthropic" },
    { ...env, ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "o" },
    dir,
  );
  assert.equal(config.apiKey, "a");
  assert.equal(config.baseUrl, "https://api.anthropic.com");
});

test("an unknown model gets a conservative 32k window and says so; configuration and the endpoint win", () => {
  const unknown = resolveLimits({ model: "my-finetune" });
  assert.equal(unknown.contextWindow, DEFAULT_CONTEXT_WINDOW);
  assert.equal(unknown.source, "default");
  assert.ok(unknown.maxOutput <= unknown.contextWindow / 2);
  assert.equal(resolveLimits({ model: "qwen3-coder-30b" }).contextWindow, 32_768);
  const served = resolveLimits({
    model: "qwen3-coder",
    discovered: { contextWindow: 16_384, source: "vLLM max_model_len" },
  });
  assert.equal(served.contextWindow, 16_384);
  assert.equal(served.source, "endpoint");
  const configured = resolveLimits({
    model: "qwen3-coder",
    configured: { contextWindow: 65_536 },
    discovered: { contextWindow: 16_384, source: "x" },
  });
  assert.equal(configured.contextWindow, 65_536);
  assert.equal(configured.source, "config");
});

test("timeouts for slow servers come from the config file in seconds, and the environment wins", () => {
  const { dir, env } = home();
  mkdirSync(join(dir, "config", "nex"), { recursive: true });
  writeFileSync(
    join(dir, "config", "nex", "config.json"),
    JSON.stringify({ timeouts: { firstByteSeconds: 900, idleSeconds: 300 } }),
  );
  assert.deepEqual(resolveConfig({}, env, dir).timeouts, { firstByteMs: 900_000, idleMs: 300_000 });
  assert.deepEqual(resolveConfig({}, { ...env, NEX_IDLE_TIMEOUT: "30" }, dir).timeouts, {
    firstByteMs: 900_000,
    idleMs: 30_000,
  });
  assert.deepEqual(
    resolveConfig({}, { HOME: dir, XDG_CONFIG_HOME: join(dir, "none") }, dir).timeouts,
    {},
  );
  assert.throws(
    () => resolveConfig({}, { ...env, NEX_FIRST_BYTE_TIMEOUT: "soon" }, dir),
    (error: unknown) =>
      error instanceof ConfigError &&
      /NEX_FIRST_BYTE_TIMEOUT must be a number of seconds/.test(error.message),
  );
});
