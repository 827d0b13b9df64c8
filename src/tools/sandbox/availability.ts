import { accessSync, constants, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import type { SandboxState } from "./policy.ts";

/** Finds an executable on PATH, as a shell would. */
export function findOnPath(name: string, path: string | undefined): string | null {
  for (const dir of (path ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return null;
}

function readNumber(path: string): number | null {
  try {
    return Number(readFileSync(path, "utf8").trim());
  } catch {
    return null;
  }
}

/** What the machine says about the sandbox, gathered without starting one (a few file reads). */
export interface SandboxHost {
  platform: NodeJS.Platform;
  path: string | undefined;
  uid: number;
}

/**
 * Whether commands can be confined here. Cheap checks only: a sandbox that still fails to start
 * (a container's seccomp profile, say) is caught when the first command runs, and that command is
 * then not run.
 */
export function sandboxState(host: SandboxHost): SandboxState {
  if (host.platform === "linux") {
    const bwrap = findOnPath("bwrap", host.path);
    if (!bwrap) {
      return {
        type: "unavailable",
        reason: "bubblewrap (bwrap) is not installed",
        fix: 'install it (Debian/Ubuntu: `sudo apt-get install bubblewrap`; Fedora: `sudo dnf install bubblewrap`), or set "sandbox": {"mode": "off"} in the config (or --sandbox off) to run commands unconfined',
      };
    }
    if (host.uid !== 0) {
      const maxNamespaces = readNumber("/proc/sys/user/max_user_namespaces");
      const unprivileged = readNumber("/proc/sys/kernel/unprivileged_userns_clone");
      if (maxNamespaces === 0 || unprivileged === 0) {
        return {
          type: "unavailable",
          reason: "user namespaces are disabled on this machine, so bubblewrap cannot start",
          fix: "enable them (`sudo sysctl -w kernel.unprivileged_userns_clone=1` or user.max_user_namespaces > 0), or use --sandbox off",
        };
      }
    }
    return { type: "active", backend: "bwrap" };
  }
  if (host.platform === "darwin") {
    const exec = findOnPath("sandbox-exec", "/usr/bin");
    return exec
      ? { type: "active", backend: "seatbelt" }
      : {
          type: "unavailable",
          reason: "sandbox-exec is missing",
          fix: "use --sandbox off to run commands unconfined",
        };
  }
  return {
    type: "unavailable",
    reason: `nex has no sandbox for ${host.platform}`,
    fix: 'set "sandbox": {"mode": "off"} in the config (or --sandbox off) to run commands unconfined, approving each one',
  };
}
