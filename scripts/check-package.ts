// Installs the packed package as a user would (`npm install -g` of the tarball into a fresh prefix) on
// exact Node.js versions, and runs it: `--version`, `demo`, a headless run against a stub endpoint,
// and every module of the bundle loaded once. Any warning printed on the way (npm's EBADENGINE or
// deprecation notices, Node.js's ExperimentalWarning) fails the check, as does an older Node.js that
// is not refused with one clear line. Run by `.ci/run` and `scripts/release.ts`.
//   node scripts/check-package.ts [--tarball nex-x.y.z.tgz] [--node 22.12.0] [--node latest] [--refuse 20.20.0]
// Without --tarball it packs the checkout; without --node it checks the floor (`engines`) and the
// newest Node.js on the registry (scripts/exact-node.ts).
import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { parseArgs, promisify } from "node:util";
import { openaiText, startStubEndpoint, status } from "../src/demo/scripted-endpoint.ts";
import { exactNode, floorVersion, npm } from "./exact-node.ts";

const run = promisify(execFile);
const root = resolve(import.meta.dirname, "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  name: string;
  version: string;
  engines: { node: string };
};
const floor = pkg.engines.node.replace(/^>=\s*/, "");
const floorExact = floorVersion(pkg.engines.node);

const { values } = parseArgs({
  options: {
    tarball: { type: "string" },
    node: { type: "string", multiple: true },
    refuse: { type: "string", multiple: true },
  },
});

const work = mkdtempSync(join(tmpdir(), "nex-package-"));
const failures: string[] = [];

function fail(what: string, output: string): void {
  failures.push(`${what}\n${output.trim().split("\n").slice(-30).join("\n")}`);
  process.stdout.write(`  ✗ ${what}\n`);
}

function ok(what: string): void {
  process.stdout.write(`  ✓ ${what}\n`);
}

/** Lines a user would read as a warning, in npm's or Node.js's words. */
function warnings(output: string): string[] {
  return output
    .split("\n")
    .filter((line) => /\bwarn(ing)?\b|EBADENGINE|deprecated|ExperimentalWarning/i.test(line));
}

/** A clean environment: no npm_* settings of whoever runs this, no NODE_OPTIONS, config in `home`. */
function cleanEnv(pathDirs: string[], home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    // NODE_EXTRA_CA_CERTS stays: a machine behind a TLS-inspecting proxy needs it to reach the registry.
    if (!/^npm_|^NEX_|^NODE_(?!EXTRA_CA_CERTS$)/i.test(key)) env[key] = value;
  }
  env.PATH = [...pathDirs, "/usr/local/bin", "/usr/bin", "/bin"].join(delimiter);
  env.HOME = home;
  env.XDG_CONFIG_HOME = join(home, "config");
  env.XDG_DATA_HOME = join(home, "data");
  env.XDG_CACHE_HOME = join(home, "cache");
  // The user's npm cache, so a check does not fetch what this machine already has.
  env.npm_config_cache = join(homedir(), ".npm");
  env.NO_COLOR = "1";
  return env;
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runIn(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<Ran> {
  return new Promise((done) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 300_000);
    child.on("error", (error) => {
      clearTimeout(timer);
      done({ code: null, stdout, stderr: `${stderr}${error.message}` });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

async function packed(): Promise<string> {
  if (values.tarball) return resolve(values.tarball);
  const dest = join(work, "packs");
  mkdirSync(dest);
  process.stdout.write("Packing the checkout (npm pack builds dist/)…\n");
  await run(npm, ["pack", "--pack-destination", dest], {
    cwd: root,
    maxBuffer: 16 * 1024 * 1024,
  });
  const name = readdirSync(dest).find((file) => file.endsWith(".tgz"));
  if (!name) throw new Error("npm pack wrote no tarball");
  return join(dest, name);
}

/** Installs `tarball` with Node.js from `bin` into a fresh prefix; the prefix's bin folder. */
async function install(
  tarball: string,
  bin: string,
  label: string,
  quiet = true,
): Promise<string | null> {
  const home = join(work, label);
  const prefix = join(home, "prefix");
  mkdirSync(home, { recursive: true });
  const env = cleanEnv([bin], home);
  const started = performance.now();
  const result = await runIn(
    npm,
    ["install", "-g", "--prefix", prefix, "--no-fund", "--no-audit", tarball],
    { cwd: home, env },
  );
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const output = result.stdout + result.stderr;
  if (result.code !== 0) {
    fail(`npm install -g exited ${result.code}`, output);
    return null;
  }
  const warned = quiet ? warnings(output) : [];
  if (warned.length > 0) fail("npm install -g printed warnings", warned.join("\n"));
  else ok(`npm install -g: ${quiet ? "no warning, " : ""}${seconds} s`);
  return join(prefix, "bin");
}

async function checkOn(tarball: string, version: string): Promise<void> {
  const node = await exactNode(version);
  process.stdout.write(`\nNode.js ${node.version}\n`);
  const label = `node-${node.version}`;
  const bin = await install(tarball, node.dir, label);
  if (!bin) return;
  const home = join(work, label);
  const project = join(home, "my-project");
  mkdirSync(project);
  const env = cleanEnv([bin, node.dir], home);
  const nex = join(bin, "nex");

  const version_ = await runIn(nex, ["--version"], { cwd: project, env });
  if (version_.code === 0 && version_.stdout === `nex ${pkg.version}\n` && version_.stderr === "")
    ok("nex --version");
  else fail("nex --version", version_.stdout + version_.stderr);

  const demo = await runIn(nex, ["demo"], { cwd: project, env });
  if (demo.code === 0 && /All \d+ scenarios behaved as promised/.test(demo.stdout) && !demo.stderr)
    ok("nex demo: every scenario as promised, nothing on stderr");
  else fail(`nex demo (exit ${demo.code})`, demo.stdout + demo.stderr);

  const stub = await startStubEndpoint({
    handler: (request) =>
      request.path.endsWith("/chat/completions")
        ? openaiText("installed and answering")
        : status(404),
  });
  const headless = async (extra: string[], prompt: string, what: string) => {
    const result = await runIn(
      nex,
      ["run", ...extra, "--model", "stub-model", "--base-url", `${stub.url}/v1`, prompt],
      { cwd: project, env: { ...env, OPENAI_API_KEY: "sk-package-check" } },
    );
    const answered = /installed and answering/.test(result.stdout);
    if (result.code === 0 && answered && warnings(result.stderr).length === 0) ok(what);
    else fail(`${what} (exit ${result.code})`, result.stdout + result.stderr);
  };
  try {
    await headless([], "say hi", "nex run against the stub endpoint: the answer, no warning");
    // Resuming counts the conversation with the tokenizer, whose tables the bundle carries apart.
    await headless(["--continue"], "again", "nex run --continue: resumed (tokenizer tables found)");
  } finally {
    await stub.close();
  }

  // Every module of the bundle loads (the lazy ones too: a missing module or a Node.js API the
  // floor lacks shows here, not in a user's session), with nothing printed.
  const installed = join(home, "prefix", "lib", "node_modules", pkg.name, "dist");
  const modules = readdirSync(installed, { recursive: true })
    .map(String)
    .filter((file) => file.endsWith(".js"));
  const load = await runIn(
    join(node.dir, "node"),
    [
      "--input-type=module",
      "-e",
      `for (const file of ${JSON.stringify(modules)}) await import(${JSON.stringify(`${installed}/`)} + file);`,
    ],
    { cwd: project, env },
  );
  if (load.code === 0 && load.stdout === "" && load.stderr === "")
    ok(`all ${modules.length} modules of dist/ load, nothing printed`);
  else fail("loading dist/'s modules", load.stdout + load.stderr);
}

/** An older Node.js than the floor: the installed nex says so in one line and exits 3. */
async function checkRefused(tarball: string, version: string): Promise<void> {
  const node = await exactNode(version);
  process.stdout.write(`\nNode.js ${node.version} (older than ${floor}: refused)\n`);
  const label = `node-${node.version}`;
  // npm itself warns of the package's engines there: that is the point.
  const bin = await install(tarball, node.dir, label, false);
  if (!bin) return;
  const env = cleanEnv([bin, node.dir], join(work, label));
  const result = await runIn(join(bin, "nex"), ["demo"], { cwd: join(work, label), env });
  const lines = result.stderr.trim().split("\n");
  if (
    result.code === 3 &&
    result.stdout === "" &&
    lines.length === 1 &&
    lines[0]?.includes(`needs Node.js ${floor} or newer`)
  )
    ok(`refused in one line: ${lines[0]}`);
  else fail(`an old Node.js is not refused in one line (exit ${result.code})`, result.stderr);
}

try {
  const tarball = await packed();
  process.stdout.write(`Checking ${tarball}\n`);
  for (const version of values.node ?? [floorExact, "latest"]) await checkOn(tarball, version);
  for (const version of values.refuse ?? []) await checkRefused(tarball, version);
} finally {
  rmSync(work, { recursive: true, force: true });
}
if (failures.length > 0) {
  process.stderr.write(`\n${failures.length} check(s) failed:\n\n${failures.join("\n\n")}\n`);
  process.exit(1);
}
process.stdout.write("\nThe package installs and runs, with no warning.\n");
