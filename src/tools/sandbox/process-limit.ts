import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A pids cgroup that holds one command's processes; `release` removes it once they are gone. */
export interface ProcessCap {
  dir: string;
  /** Kills, at once and synchronously (it runs in nex's exit handler), every process in the cgroup. */
  kill(): void;
  /** Kills what is still in the cgroup, then removes it. */
  release(): void;
}

// A process in the middle of fork() can add a member after the list was read: read again until empty.
const KILL_ROUNDS = 20;

function killMembers(dir: string): void {
  try {
    // cgroup v2 (Linux 5.14+): one write kills every member, forks in progress included.
    writeFileSync(join(dir, "cgroup.kill"), "1");
    return;
  } catch {
    // v1, or an older kernel: kill the members one by one.
  }
  for (let round = 0; round < KILL_ROUNDS; round++) {
    let pids: number[];
    try {
      pids = readFileSync(join(dir, "cgroup.procs"), "utf8")
        .split("\n")
        .filter(Boolean)
        .map(Number);
    } catch {
      return;
    }
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // ESRCH: gone already.
      }
    }
  }
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

/** Whether `pid` may still be a running nex (a process we may not signal counts as running). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code !== "ESRCH";
  }
}

/**
 * Ends what a nex killed outright left in its cgroups (its pid is gone), and removes them. Nothing of
 * a command runs there any more (the sandbox's lifeline ended it), but a sandbox caught in its own
 * set-up when its nex died can wait there forever for a go-ahead that will never come.
 */
function sweepStale(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^nex-(\d+)-\d+$/.exec(name)?.[1]);
    if (!pid || (pid !== process.pid && alive(pid))) continue;
    // This nex's own pid too: the sweep runs before its first cgroup, so such a folder is a dead
    // nex's whose pid came back, and left there it would block this nex's first cgroup.
    killMembers(join(dir, name));
    try {
      rmdirSync(join(dir, name));
    } catch {
      // Still holds processes, or not ours to remove.
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
    kill: () => killMembers(dir),
    release() {
      // The PID namespace ends every process with the command, unless bubblewrap's init outlived its
      // parent: then this is what stops them. Killed processes leave the cgroup a moment later.
      killMembers(dir);
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
