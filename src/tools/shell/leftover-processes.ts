// A command can leave processes behind that its process group does not hold: `setsid -f`, a double
// fork into a new session, `nohup … & disown` followed by `setsid`. Such a process would go on
// changing files after nex reported the command's end. Every command's environment carries a
// variable unique to it; every process it starts inherits the variable, whatever group or session it
// moves to, so when the command ends the processes that still carry it are its leftovers. A process
// that clears its environment (`env -i`) escapes this; the OS sandbox's PID namespace does not.
// Linux only: elsewhere the result says that leftovers could not be checked.

const fsSync = () => process.getBuiltinModule("node:fs");

/** The variable that marks one command's processes. */
export interface CommandTag {
  name: string;
  value: string;
}

/** A process a command left running, as the model is told of it. */
export interface LeftoverProcess {
  pid: number;
  command: string;
}

/** The processes a command left running when it ended, all of which are stopped. */
export interface Leftovers {
  /** False where processes cannot be inspected (no /proc): nothing was checked. */
  checked: boolean;
  /** The processes left running, not counting those they started themselves. */
  stopped: LeftoverProcess[];
  /** How many processes those had started. */
  children: number;
}

/** A fresh tag for one command. */
export function commandTag(): CommandTag {
  const { randomBytes } = process.getBuiltinModule("node:crypto");
  return { name: `NEX_COMMAND_${randomBytes(8).toString("hex")}`, value: "1" };
}

/** A process that carries a command's tag. */
export interface Tagged {
  pid: number;
  parent: number;
  group: number;
}

// Synchronous on purpose: a scan reads a few hundred small files, ~3 ms of CPU this way against
// ~10 ms through promises, and it runs once per command. Each environment is read into one reused
// buffer and searched as bytes: no string is made of the hundreds that do not carry the tag.
let environBuffer: Buffer | null = null;

function environHolds(fs: typeof import("node:fs"), pid: number, entry: Buffer): boolean {
  environBuffer ??= Buffer.alloc(64 * 1024);
  const fd = fs.openSync(`/proc/${pid}/environ`, "r");
  try {
    // An environment larger than the buffer is read in overlapping windows, so an entry that
    // straddles two reads is still seen whole.
    let filled = 0;
    let atStart = true;
    for (;;) {
      const read = fs.readSync(fd, environBuffer, filled, environBuffer.length - filled, null);
      const end = filled + read;
      const window = environBuffer.subarray(0, end);
      for (let at = window.indexOf(entry); at !== -1; at = window.indexOf(entry, at + 1))
        if ((at === 0 && atStart) || (at > 0 && window[at - 1] === 0)) return true;
      if (read === 0) return false;
      if (end < environBuffer.length) {
        filled = end;
        continue;
      }
      // Full: keep the last entry's length (and so the byte before any entry cut at the end).
      filled = entry.length;
      environBuffer.copy(environBuffer, 0, end - filled, end);
      atStart = false;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Every process that carries `tag`, with its parent and group; null where /proc cannot be read. */
export function findTagged(tag: CommandTag): Tagged[] | null {
  const fs = fsSync();
  const entry = Buffer.from(`${tag.name}=${tag.value}\0`, "latin1");
  let names: string[];
  try {
    names = fs.readdirSync("/proc");
  } catch {
    return null;
  }
  const found: Tagged[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (!environHolds(fs, pid, entry)) continue;
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "latin1");
      // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so count after the last ")".
      const [, parent, group] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      found.push({ pid, parent: Number(parent), group: Number(group) });
    } catch {
      // Gone, or another user's.
    }
  }
  return found;
}

function commandLine(pid: number): string {
  try {
    const raw = fsSync().readFileSync(`/proc/${pid}/cmdline`, "utf8");
    const line = raw.replace(/\0+$/, "").replaceAll("\0", " ");
    return line.length > 200 ? `${line.slice(0, 197)}...` : line || "(unknown)";
  } catch {
    return "(unknown)";
  }
}

function signal(pids: number[], name: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, name);
    } catch {
      // ESRCH: already gone.
    }
  }
}

const POLL_MS = 50;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The processes that still carry `tag`, as the model is told of them (those whose parent is among
 * them are only counted); outside `group` only, when given (the runner already stopped that group).
 */
export function findLeftovers(
  tag: CommandTag,
  group?: number,
  /** A scan just made (`findTagged`), to use instead of a new one. */
  scanned?: Tagged[] | null,
): Leftovers {
  const found = scanned === undefined ? findTagged(tag) : scanned;
  if (found === null) return { checked: false, stopped: [], children: 0 };
  const strays = found.filter((p) => p.group !== group);
  const pids = new Set(strays.map((p) => p.pid));
  const tops = strays.filter((p) => !pids.has(p.parent));
  return {
    checked: true,
    stopped: tops.map((p) => ({ pid: p.pid, command: commandLine(p.pid) })),
    children: strays.length - tops.length,
  };
}

/** Both reports of one command's leftovers as one: each process once. */
export function mergeLeftovers(a: Leftovers, b: Leftovers): Leftovers {
  const seen = new Set(a.stopped.map((p) => p.pid));
  return {
    checked: a.checked && b.checked,
    stopped: [...a.stopped, ...b.stopped.filter((p) => !seen.has(p.pid))],
    children: Math.max(a.children, b.children),
  };
}

/**
 * Stops every process that still carries `tag`: SIGTERM, then, for what is left after `graceMs`,
 * SIGSTOP (so nothing forks while it is being killed) and SIGKILL, until none is left.
 */
export async function stopLeftovers(
  tag: CommandTag,
  graceMs: number,
  /** A scan just made (`findTagged`), to start from instead of a new one. */
  scanned?: Tagged[] | null,
): Promise<void> {
  let left = (scanned === undefined ? findTagged(tag) : scanned) ?? [];
  if (left.length === 0) return;
  signal(
    left.map((p) => p.pid),
    "SIGTERM",
  );
  const deadline = performance.now() + graceMs;
  while (left.length > 0 && performance.now() < deadline) {
    await sleep(POLL_MS);
    left = findTagged(tag) ?? [];
  }
  for (let round = 0; left.length > 0 && round < 20; round++) {
    const pids = left.map((p) => p.pid);
    signal(pids, "SIGSTOP");
    signal(pids, "SIGKILL");
    await sleep(POLL_MS);
    left = findTagged(tag) ?? [];
  }
}

/**
 * What the model is told about processes the command left behind: each one stopped, by pid and
 * command line; or that they could not be checked. Empty when there is nothing to say.
 */
export function describeLeftovers(leftovers: Leftovers, heldOutput: boolean): string {
  if (!leftovers.checked) {
    return heldOutput
      ? "\n(A background process it started kept running outside nex's control; processes it detached cannot be checked on this system.)"
      : "\n(Processes it may have detached (setsid, nohup, a double fork) cannot be checked on this system.)";
  }
  if (leftovers.stopped.length === 0) {
    return heldOutput
      ? "\n(A background process it started kept running outside nex's control.)"
      : "";
  }
  // A fork bomb leaves thousands: name a few, count the rest.
  const shown = leftovers.stopped.slice(0, 10);
  const hidden = leftovers.stopped.length - shown.length;
  const list =
    shown.map((p) => `\n  pid ${p.pid}: ${p.command.slice(0, 200)}`).join("") +
    (hidden > 0 ? `\n  and ${hidden} more` : "");
  const more =
    leftovers.children > 0
      ? `\n  and ${leftovers.children} process${leftovers.children === 1 ? "" : "es"} they had started`
      : "";
  const count =
    leftovers.stopped.length === 1 ? "1 process" : `${leftovers.stopped.length} processes`;
  return (
    `\nnex stopped ${count} that the command left running (in the background, or detached with setsid, nohup or a double fork); ` +
    `whatever they were doing after the command ended did not finish:${list}${more}\n` +
    "Commands may not outlive the bash call: run the work in the foreground."
  );
}

// Commands still running, with their process groups: if nex exits before they end (a second
// Ctrl-C, a crash, process.exit anywhere), the exit handler kills them at once, synchronously.
const running = new Map<CommandTag, { group: number | undefined; stop?: () => void }>();
let exitHookInstalled = false;

function killRunning(): void {
  for (const [tag, { group, stop }] of running) {
    stop?.();
    if (group !== undefined) {
      try {
        process.kill(-group, "SIGKILL");
      } catch {
        // ESRCH: the group is gone.
      }
    }
    signal(
      (findTagged(tag) ?? []).map((p) => p.pid),
      "SIGKILL",
    );
  }
}

/**
 * Marks a command as running until the returned function is called; nex's exit kills it: its group,
 * what `stop` holds (a sandbox's cgroup), and every process that carries its tag.
 */
export function killOnExit(
  tag: CommandTag,
  group: number | undefined,
  stop?: () => void,
): () => void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", killRunning);
  }
  running.set(tag, { group, stop });
  return () => running.delete(tag);
}
