import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A pids cgroup that holds one command's processes; `release` removes it once they are gone. */
export interface ProcessCap {
  dir: string;
  release(): void;
}

/**
 * Where this process may create pids cgroups: the v1 `pids` hierarchy, or its own v2 cgroup when the
 * pids controller is delegated there. Null when neither is writable (most non-root users; then the
 * `ulimit -u` inside the sandbox is the bound, which the kernel does not apply to root).
 */
function pidsRoot(): string | null {
  const v1 = "/sys/fs/cgroup/pids";
  try {
    readFileSync(join(v1, "cgroup.procs"));
    return v1;
  } catch {
    // No v1 pids hierarchy.
  }
  try {
    const own = /^0::(.*)$/m.exec(readFileSync("/proc/self/cgroup", "utf8"))?.[1];
    if (own === undefined) return null;
    for (const base of ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"]) {
      const dir = join(base, own);
      try {
        if (readFileSync(join(dir, "cgroup.subtree_control"), "utf8").includes("pids")) return dir;
      } catch {
        // Not this mount.
      }
    }
  } catch {
    // No cgroup information.
  }
  return null;
}

let root: string | null | undefined;
let counter = 0;

/** Removes the empty cgroups a nex left when it was killed before it could (its pid is gone). */
function sweepStale(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^nex-(\d+)-\d+$/.exec(name)?.[1]);
    if (!pid || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as { code?: string }).code !== "ESRCH") continue;
      try {
        rmdirSync(join(dir, name));
      } catch {
        // Still holds processes, or not ours to remove.
      }
    }
  }
}

/** A fresh pids cgroup of at most `max` processes, or null when the machine offers none nex can write. */
export function createProcessCap(max: number): ProcessCap | null {
  if (root === undefined) {
    root = pidsRoot();
    if (root) sweepStale(root);
  }
  if (!root) return null;
  const dir = join(root, `nex-${process.pid}-${++counter}`);
  try {
    mkdirSync(dir);
    writeFileSync(join(dir, "pids.max"), String(max));
  } catch {
    try {
      rmdirSync(dir);
    } catch {
      // Never made.
    }
    root = null;
    return null;
  }
  return {
    dir,
    release() {
      // The killed processes leave the cgroup a moment after the command's end.
      let tries = 0;
      const attempt = (): void => {
        try {
          rmdirSync(dir);
        } catch {
          if (++tries < 50) setTimeout(attempt, 100).unref();
        }
      };
      attempt();
    },
  };
}
