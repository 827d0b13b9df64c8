// Installs nex the way the README says (a packed tarball, `npm install -g`) into a temporary prefix
// with the machine's own Node.js and npm (not the checkout's Node.js 24), then runs the installed
// `nex` from a folder outside the clone: the package must carry plain JavaScript that runs there.
// A machine whose Node.js is older than the floor (`engines`) must see nex refuse in one clear line.
// `.ci/run` (scripts/check-package.ts) runs the package on the exact floor and the newest Node.js.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { startForwardProxy } from "../support/forward-proxy.ts";
import { scratchDir } from "../support/scratch-dir.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, status } from "../support/stub-scripts.ts";

const run = promisify(execFile);
const checkout = resolve(import.meta.dirname, "..", "..");

/** The first `node` on PATH that is not a checkout's (node_modules/.bin), with an `npm` beside it. */
function systemNode(): { dir: string } | undefined {
  const dirs = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => !dir.includes("node_modules"));
  for (const dir of [...dirs, "/usr/bin", "/usr/local/bin"]) {
    if (existsSync(join(dir, "node")) && existsSync(join(dir, "npm"))) {
      return { dir };
    }
  }
  return undefined;
}

// The child npm must not inherit this run's npm settings (npm test sets npm_config_* and friends).
function cleanEnv(pathDirs: string[], home: string): Record<string, string> & { PATH: string } {
  const env: Record<string, string> & { PATH: string } = { PATH: "" };
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^npm_/i.test(key) && key !== "NODE_OPTIONS") env[key] = value;
  }
  env.PATH = [...pathDirs, "/usr/bin", "/bin"].join(delimiter);
  env.NO_COLOR = "1";
  env.XDG_CONFIG_HOME = join(home, "config");
  env.XDG_DATA_HOME = join(home, "data");
  return env;
}

const found = systemNode();

/** Whether dotted version `a` is older than `b` ("20.20.2" < "22.12"). */
function olderThan(a: string, b: string): boolean {
  const [x, y] = [a, b].map((v) => v.split(".").map(Number));
  for (let i = 0; i < 3; i++) {
    const d = ((x as number[])[i] ?? 0) - ((y as number[])[i] ?? 0);
    if (d !== 0) return d < 0;
  }
  return false;
}

test("npm install -g of the packed tarball puts a nex on PATH that runs on the machine's Node.js, or refuses an older one than its floor in one line", {
  skip: found ? false : "no system node/npm outside node_modules",
  timeout: 600_000,
}, async () => {
  const nodeDir = (found as { dir: string }).dir;
  const base = scratchDir("nex-install-");
  // Pack a copy, so the checkout's own files (dist/ included) are left as they are.
  const source = join(base, "source");
  mkdirSync(source);
  for (const name of [
    "bin",
    "src",
    "scripts",
    "package.json",
    "tsconfig.json",
    "README.md",
    "LICENSE",
  ]) {
    cpSync(join(checkout, name), join(source, name), { recursive: true });
  }
  symlinkSync(join(checkout, "node_modules"), join(source, "node_modules"));
  const env = cleanEnv([nodeDir], base);
  const { stdout: nodeVersion } = await run(join(nodeDir, "node"), ["--version"], { env });
  const packs = join(base, "packs");
  mkdirSync(packs);
  // Building needs the checkout's TypeScript; the package itself needs nothing but Node.js.
  await run(join(nodeDir, "npm"), ["pack", "--pack-destination", packs], {
    cwd: source,
    env: { ...env, PATH: `${join(checkout, "node_modules", ".bin")}${delimiter}${env.PATH}` },
  });
  const tarball = readdirSync(packs).find((name) => name.endsWith(".tgz"));
  assert.ok(tarball, "npm pack wrote a tarball");

  const prefix = join(base, "prefix");
  await run(
    join(nodeDir, "npm"),
    [
      "install",
      "-g",
      "--prefix",
      prefix,
      "--prefer-offline",
      "--no-fund",
      "--no-audit",
      join(packs, tarball),
    ],
    { cwd: base, env, maxBuffer: 16 * 1024 * 1024 },
  );
  const { name, engines } = JSON.parse(readFileSync(join(checkout, "package.json"), "utf8"));
  const installed = join(prefix, "lib", "node_modules", name);
  assert.ok(existsSync(join(installed, "dist", "cli", "main.js")), "the package ships dist/");
  assert.ok(!existsSync(join(installed, "src")), "the package ships no TypeScript sources");
  assert.ok(!existsSync(join(installed, "node_modules")), "the bundle installs no dependencies");

  // From a folder outside the clone, with only the prefix and the machine's Node.js on PATH.
  const project = join(base, "my-project");
  mkdirSync(project);
  const userEnv = {
    ...env,
    PATH: [join(prefix, "bin"), ...env.PATH.split(delimiter)].join(delimiter),
  };
  const version = await run("nex", ["--version"], { cwd: project, env: userEnv });
  assert.match(version.stdout, /^nex \d+\.\d+\.\d+\n$/);

  const floor = String(engines.node).replace(/^>=\s*/, "");
  if (olderThan(nodeVersion.trim().slice(1), floor)) {
    const refused = await run("nex", ["demo"], { cwd: project, env: userEnv }).then(
      () => assert.fail("nex ran on a Node.js older than its floor"),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    assert.equal(refused.code, 3);
    assert.equal(refused.stdout, "");
    assert.match(
      refused.stderr,
      new RegExp(`^nex needs Node\\.js ${floor} or newer; this is [^\n]*\n$`),
    );
    process.stdout.write(`# Node.js ${nodeVersion.trim()} is refused: ${refused.stderr}`);
    return;
  }

  // The whole demo: a real session (tools, sandbox, journal) on the machine's Node.js.
  const demo = await run("nex", ["demo"], {
    cwd: project,
    env: userEnv,
    maxBuffer: 16 * 1024 * 1024,
    timeout: 300_000,
  });
  const output = demo.stdout + demo.stderr;
  assert.match(output, /All \d+ scenarios behaved as promised/, output.slice(-2000));

  // Behind a proxy, on the machine's Node.js (whose HTTP agents may not know Node's proxy option):
  // the model is reached through the proxy, never around it. `model.test` resolves only there.
  const proxy = await startForwardProxy();
  const stub = await startStubEndpoint({
    handler: (request) =>
      request.path.endsWith("/chat/completions") ? openaiText("through the proxy") : status(404),
  });
  try {
    const port = new URL(stub.url).port;
    const proxied = await run(
      "nex",
      [
        "run",
        "--model",
        "stub-model",
        "--base-url",
        `http://model.test:${port}/v1`,
        "--data-dir",
        join(base, "proxied-data"),
        "say hi",
      ],
      {
        cwd: project,
        env: { ...userEnv, HTTP_PROXY: proxy.url, OPENAI_API_KEY: "sk-install-test" },
        timeout: 120_000,
      },
    );
    assert.match(proxied.stdout, /through the proxy/);
    assert.ok(
      proxy.seen.some((line) => line === `POST http://model.test:${port}/v1/chat/completions`),
      `the proxy saw: ${proxy.seen.join("; ")}`,
    );
  } finally {
    await stub.close();
    await proxy.close();
  }
  process.stdout.write(`# installed nex ran on Node.js ${nodeVersion}`);
});
