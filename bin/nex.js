#!/usr/bin/env node
// Entry point. Kept as plain JavaScript with no imports on the `--version` path so that it starts fast,
// and so that it can explain (or fix) an old Node.js before any TypeScript is loaded.
// Two layouts: an installed package (`npm pack` / `npm install -g`) ships `dist/`, the bundle that
// `npm run build` makes of `src/` and its dependencies, and no `src/`: it runs on Node.js 22.12 and newer with no type stripping.
// Why 22.12: Node.js 20 reached its end of life in April 2026, and 22.12 is the oldest release every
// dependency supports (eventsource-parser needs it; unpdf needs 22).
// A checkout runs `src/` directly (never a `dist/` that may be older than the sources).
// CommonJS (bin/package.json): Node.js loads a CommonJS file without starting its ES module loader,
// which keeps `nex --version` within a few percent of a bare `node -e 0`; the rest is `import()`ed.
const { existsSync, readFileSync } = require("node:fs");

const args = process.argv.slice(2);

if (args.length === 1 && (args[0] === "--version" || args[0] === "-v")) {
  const { version } = JSON.parse(readFileSync(`${__dirname}/../package.json`, "utf8"));
  process.stdout.write(`nex ${version}\n`);
  process.exit(0);
}

const nodeModule = require("node:module");
const { join } = require("node:path");
const root = join(__dirname, "..");

const [major, minor] = process.versions.node.split(".").map(Number);
const installed =
  !existsSync(join(root, "src", "cli", "main.ts")) &&
  existsSync(join(root, "dist", "cli", "main.js"));

async function start() {
  if (installed) {
    if (major < 22 || (major === 22 && minor < 12)) {
      process.stderr.write(
        `nex needs Node.js 22.12 or newer; this is ${process.versions.node}. Install a newer Node.js (https://nodejs.org) and run nex again.\n`,
      );
      process.exit(3);
    }
    nodeModule.enableCompileCache?.();
    const { main } = await import("../dist/cli/main.js");
    process.exitCode = await main(args);
  } else if (major < 22 || (major === 22 && minor < 18)) {
    // The checkout brings its own Node.js (the `node` dev dependency): use it rather than fail.
    const bundled = join(root, "node_modules", ".bin", "node");
    if (existsSync(bundled) && !process.env.NEX_REEXEC) {
      const { spawn } = require("node:child_process");
      const child = spawn(bundled, [__filename, ...args], {
        stdio: "inherit",
        env: { ...process.env, NEX_REEXEC: "1" },
      });
      // Whoever stops this process (a supervisor, `kill`, a CI cancel) means to stop nex: the signal goes
      // on to the child, which stops its work, journals and exits; this process then exits as it did.
      const stopSignals = ["SIGINT", "SIGTERM", "SIGHUP"];
      for (const name of stopSignals) process.on(name, () => child.kill(name));
      const [code, signal] = await new Promise((resolve) => {
        child.on("error", (error) => {
          process.stderr.write(`nex: could not start ${bundled}: ${error.message}\n`);
          resolve([3, null]);
        });
        child.on("exit", (exitCode, exitSignal) => resolve([exitCode, exitSignal]));
      });
      if (signal) {
        // Die of the same signal, so a shell or supervisor sees what happened.
        for (const name of stopSignals) process.removeAllListeners(name);
        process.kill(process.pid, signal);
      }
      process.exit(code ?? 1);
    }
    process.stderr.write(
      `nex needs Node.js 22.18 or newer; this is ${process.versions.node}.\n` +
        `Run \`npm install\` in ${root} (it brings Node.js 24), then start nex with \`npx nex\`.\n`,
    );
    process.exit(3);
  } else {
    // Caches compiled modules on disk (in the OS temp dir) so later starts skip most parsing and compiling.
    nodeModule.enableCompileCache?.();
    const { main } = await import("../src/cli/main.ts");
    process.exitCode = await main(args);
  }
}

start();
