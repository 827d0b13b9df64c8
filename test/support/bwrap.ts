// Whether the OS sandbox can run here: tests that need it fail loudly in CI and skip elsewhere.
import { spawnSync } from "node:child_process";

let checked: string | null | undefined;

/** Null when bubblewrap runs here; else why not. In CI (`CI` set) a missing sandbox throws. */
export function sandboxMissing(): string | null {
  if (checked === undefined) {
    const probe = spawnSync("bwrap", ["--ro-bind", "/", "/", "--unshare-pid", "true"], {
      encoding: "utf8",
    });
    checked =
      probe.error !== undefined
        ? "bubblewrap (bwrap) is not installed: apt-get install bubblewrap"
        : probe.status !== 0
          ? `bubblewrap cannot start here: ${probe.stderr.trim()}`
          : null;
  }
  if (checked && process.env.CI) {
    throw new Error(`CI must run the sandbox tests, but ${checked}. .ci/run installs it.`);
  }
  return checked;
}
