/** How far commands are confined: writes to the workspace only, no writes at all, or not at all. */
export type SandboxMode = "workspace-write" | "read-only" | "off";

/** The platform mechanism that confines a command. */
export type SandboxBackend = "bwrap" | "seatbelt";

/** What a confined command may touch; every path absolute and, where it exists, with symlinks resolved. */
export interface SandboxPolicy {
  mode: Exclude<SandboxMode, "off">;
  /** The workspace root (realpath): writable in `workspace-write`, read-only in `read-only`. */
  workspace: string;
  /** Whether commands may open network connections (a host list is not supported: all or none). */
  network: boolean;
  /** Temporary directories (`/tmp`, `/var/tmp`): writable, private to each command, empty at its start. */
  tmpDirs: string[];
  /** Paths outside the workspace the user made writable (caches such as `~/.npm`). */
  writable: string[];
  /** Directories commands must not read: secrets, nex's own data and config. */
  hiddenDirs: string[];
  /** Files commands must not read. */
  hiddenFiles: string[];
  /**
   * Paths inside the workspace that stay read-only even in `workspace-write`: what git runs or reads
   * as configuration later, outside any sandbox (hooks, `.git/config`).
   */
  readOnly: string[];
  /** `/run`, hidden behind an empty tmpfs (daemon sockets), when it exists; else null. */
  runDir: string | null;
  /** What name resolution reads under `/run` (systemd-resolved's stub), kept when network is allowed. */
  resolverPaths: string[];
  /** Most processes the user may have while the command runs (`ulimit -u`), so a fork bomb is bounded. */
  maxProcesses: number;
  /**
   * Most bytes each of the command's own memory-backed folders (`/tmp`, `/var/tmp`, `/run`,
   * `/dev/shm`) holds: a runaway write there fills host memory, not a disk.
   */
  tmpSizeBytes: number;
}

/** Whether the sandbox confines commands here, and if not, why and how to fix it. */
export type SandboxState =
  | { type: "off" }
  | { type: "active"; backend: SandboxBackend }
  | { type: "unavailable"; reason: string; fix: string };

/** One line for the status bar, `session_started` and `nex doctor`; `network` in words (`network-mode.ts`). */
export function describeSandbox(mode: SandboxMode, network: string, state: SandboxState): string {
  if (state.type === "off") return "sandbox off: commands run unconfined";
  if (state.type === "unavailable") return `sandbox ${mode} cannot start here: ${state.reason}`;
  return `sandbox ${mode} (${state.backend}, ${network})`;
}

/** How to start one command: the program, its arguments, and whether it reports its start on fd 3. */
export interface Launch {
  file: string;
  args: string[];
  /** bubblewrap writes `{"child-pid": …}` to fd 3 once the command runs; no such line means it never ran. */
  statusFd: boolean;
  /**
   * The command's sandbox reads fd 4 and kills every process in it once that read ends: the spawn
   * passes a pipe there (`launch-stdio.ts`), whose far end closes only when nex dies.
   */
  lifeline: boolean;
  /** Every process the command starts ends with it (bubblewrap's PID namespace): nothing to look for after. */
  contained: boolean;
  /** Turns the command's output into notes on what the sandbox blocked. */
  notes(output: string): string[];
  /** After the command: notes on what it planted for git to run later, now disarmed. */
  after(env: Record<string, string | undefined>): string[];
  /**
   * Kills at once every process the launch holds (its pids cgroup), wherever in the process tree it
   * went; synchronous, for nex's exit handler. Does nothing where the launch holds no cgroup.
   */
  stop(): void;
  /** Frees what the launch held (the command's pids cgroup); call once the command has ended. */
  release(): void;
}

/** The sandbox of one session's commands. */
export interface CommandSandbox {
  readonly mode: SandboxMode;
  readonly network: boolean;
  /** The hosts commands reach through nex's proxy while `network` is off; empty when none or unenforced. */
  readonly allowHosts: readonly string[];
  state(): SandboxState;
  /** When commands must be confined but cannot be: why and how to fix it; else null. */
  unavailable(): string | null;
  /** How to run `command` in `cwd`: confined when the sandbox is active, plain `bash -c` otherwise. */
  launch(command: string, cwd: string): Promise<Launch>;
  /** The sandbox failed to start a command: later commands are treated as unconfined (they ask). */
  markBroken(reason: string): void;
  describe(): string;
}
