// An exact Node.js version for checking the package on, from the registry's `node` package (which
// carries the release's binary for this platform), kept in ~/.cache/nex-node (NEX_NODE_CACHE).
import { execFile } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The npm that installs: the system's (any npm ≥ 10 runs on every Node.js checked). */
export const npm = process.env.NEX_NPM ?? "npm";

/** The folder holding Node.js `version` (exact, or `latest` for the newest), and the exact version. */
export async function exactNode(version: string): Promise<{ dir: string; version: string }> {
  let exact = version;
  if (version === "latest") {
    const { stdout } = await run(npm, ["view", "node@latest", "version"]);
    exact = stdout.trim();
  }
  const cache = process.env.NEX_NODE_CACHE ?? join(homedir(), ".cache", "nex-node");
  const dir = join(cache, `node-${exact}`);
  const bin = join(dir, "node_modules", "node", "bin");
  if (!existsSync(join(bin, "node"))) {
    mkdirSync(dir, { recursive: true });
    await run(
      npm,
      ["install", "--prefix", dir, "--no-save", "--no-fund", "--no-audit", `node@${exact}`],
      { maxBuffer: 16 * 1024 * 1024 },
    );
  }
  const { stdout } = await run(join(bin, "node"), ["--version"]);
  if (stdout.trim() !== `v${exact}`)
    throw new Error(`${bin}/node is ${stdout.trim()}, not ${exact}`);
  return { dir: bin, version: exact };
}

/** The floor's exact version from `engines` (">=22.12" → "22.12.0"). */
export function floorVersion(engines: string): string {
  const floor = engines.replace(/^>=\s*/, "");
  return /^\d+\.\d+$/.test(floor) ? `${floor}.0` : floor;
}
