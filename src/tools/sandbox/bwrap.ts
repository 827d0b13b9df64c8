import { LIFELINE_FD } from "../shell/index.ts";
import type { FilterMount } from "./network-proxy/index.ts";
import type { SandboxPolicy } from "./policy.ts";

// Files and processes of other users (a bind-mounted project owned by someone else), nothing more:
// no mounts, no raw I/O, no ptrace, no network administration, no resource limits lifted, and no
// CAP_FSETID (a write clears a setuid bit). Switching users stays: npm run as root runs a package's
// scripts as the folder's owner. Making setuid/setgid files is refused by the seccomp filter
// (`setid-filter.ts`): a capability cannot stop root from setting any mode on a file it owns.
const KEPT_CAPS = [
  "CAP_CHOWN",
  "CAP_DAC_OVERRIDE",
  "CAP_FOWNER",
  "CAP_KILL",
  "CAP_SETGID",
  "CAP_SETUID",
];

/**
 * The bubblewrap command line that runs `bash -c command` under `policy`. Order matters: later mounts
 * cover earlier ones, so the whole filesystem goes in read-only first, then what may be written, then
 * what must not be read, then what must stay read-only inside the workspace.
 */
export function bwrapArgs(
  policy: SandboxPolicy,
  command: string,
  cwd: string,
  asRoot: boolean,
  // The network filter's socket, proxy variables and forwarder (`network-proxy/`), when hosts are allowed.
  filter?: FilterMount,
  /** An open descriptor holding the setid filter (`setid-filter.ts`), for `--seccomp`. */
  seccompFd?: number,
): string[] {
  // Every writable memory-backed folder is sized: a tmpfs otherwise takes up to half the host's RAM.
  // /dev is bubblewrap's own tmpfs: read-only but for its sized /dev/shm (devices still work), made
  // so once the network filter's socket is bound into it.
  const size = ["--size", String(policy.tmpSizeBytes)];
  const args = ["--ro-bind", "/", "/", "--dev", "/dev"];
  args.push(...size, "--tmpfs", "/dev/shm", "--proc", "/proc");
  for (const dir of policy.tmpDirs) args.push(...size, "--tmpfs", dir);
  // /run holds the sockets of daemons that act outside any sandbox (docker, the D-Bus buses that
  // start services, an ssh agent): a read-only mount does not stop a connect(). Only the resolver's
  // files come back, for commands allowed the network.
  if (policy.runDir) {
    args.push(...size, "--tmpfs", policy.runDir);
    if (policy.network)
      for (const path of policy.resolverPaths) args.push("--ro-bind-try", path, path);
  }
  if (policy.mode === "workspace-write") {
    args.push("--bind", policy.workspace, policy.workspace);
    for (const path of policy.writable) args.push("--bind-try", path, path);
  } else {
    // The workspace may sit under /tmp, which the private /tmp just hid.
    args.push("--ro-bind", policy.workspace, policy.workspace);
  }
  for (const dir of policy.hiddenDirs) args.push("--tmpfs", dir, "--remount-ro", dir);
  for (const file of policy.hiddenFiles) args.push("--ro-bind-try", "/dev/null", file);
  for (const path of policy.readOnly) args.push("--ro-bind-try", path, path);
  if (filter) args.push(...filter.args);
  args.push("--remount-ro", "/dev");
  args.push(
    // Its own PID namespace: nex's /proc/<pid>/environ is out of sight, and every process the
    // command starts (`setsid`, `nohup … &`) ends with it.
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...(policy.network ? [] : ["--unshare-net"]),
    // Run as root, the command would keep every capability, and CAP_SYS_ADMIN can unmount the
    // read-only view. Keep only what a root user's build needs on files it does not own.
    ...(asRoot ? ["--cap-drop", "ALL", ...KEPT_CAPS.flatMap((cap) => ["--cap-add", cap])] : []),
    ...(seccompFd === undefined ? [] : ["--seccomp", String(seccompFd)]),
    // Killed with nex, even by SIGKILL; a new session so the command cannot push input into a terminal.
    "--die-with-parent",
    "--new-session",
    "--chdir",
    cwd,
    "--",
    "bash",
    "-c",
    // A process limit the command cannot raise (no CAP_SYS_RESOURCE): a fork bomb stalls, then the
    // timeout ends it. Then the lifeline (`launch-stdio.ts`), which only nex's death makes readable:
    // already readable, the command never starts; else a watcher waits on it and, when nex dies,
    // kills everything in the namespace but its init, which then ends with its child. The watcher is
    // the init's child, not the command's, so a command that waits for all its children never waits
    // for it. The command itself runs exactly as `bash -c command`, without the lifeline's descriptor.
    `ulimit -u ${policy.maxProcesses} 2>/dev/null; ` +
      `read -t 0 -u ${LIFELINE_FD} && exit 137; ` +
      `({ read -r -u ${LIFELINE_FD} _; kill -s KILL -1; } </dev/null >/dev/null 2>&1 &); ` +
      (filter?.script ?? "") +
      `exec bash -c "$1" ${LIFELINE_FD}<&-${seccompFd === undefined ? "" : ` ${seccompFd}<&-`}`,
    "nex-sandbox",
    command,
    ...(filter?.params ?? []),
  );
  return args;
}
