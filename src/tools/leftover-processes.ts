// A command can leave processes behind that its process group does not hold: `setsid -f`, a double
// fork into a new session, `nohup … & disown` followed by `setsid`. Such a process would go on
// changing files after nex reported the command's end. Every command's environment carries a
// variable unique to it; every process it starts inherits the variable, whatever group or session it
// moves to, so when the command ends the processes that still carry it are its leftovers. A process
// that clears its environment (`env -i`) escapes this; the OS sandbox's PID namespace does not.
// Linux only: elsewhere the result says that leftovers could not be checked.

const fs = () => process.getBuiltinModule("node:fs/promises");
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

/** What the sweep after a command found. */
export interface LeftoverSweep {
  /** False where processes cannot be inspected (no /proc): nothing was checked. */
  checked: boolean;
  /** Processes outside the command's own process group that were still running, now stopped (not counting their children). */
  stopped: LeftoverProcess[];
  /** How many processes those had started, stopped with them. */
  children: number;
}

/** A fresh tag for one command. */
export function commandTag(): CommandTag {
  const { randomBytes } = process.getBuiltinModule("node:crypto");
  return { name: `NEX_COMMAND_${randomBytes(8).toString("hex")}`, value: "1" };
}

interface Tagged {
  pid: number;
  parent: number;
  group: number;
}

// Synchronous on purpose: a scan reads a few hundred small files, ~3 ms of CPU this way against
// ~10 ms through promises, and it runs once per command.
function findTagged(tag: CommandTag): Tagged[] | null {
  const { readdirSync, readFileSync } = fsSync();
  const entry = `${tag.name}=${tag.value}\0`;
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return null;
  }
  const found: Tagged[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, "latin1");
      const at = environ.indexOf(entry);
      if (at === -1 || (at > 0 && environ[at - 1] !== "\0")) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
      // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so count after the last ")".
      const [, parent, group] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      found.push({ pid, parent: Number(parent), group: Number(group) });
    } catch {
      // Gone, or another user's.
    }
  }
  return found;
}

async function commandLine(pid: number): Promise<string> {
  try {
    const raw = await fs().readFile(`/proc/${pid}/cmdline`, "utf8");
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
 * Stops every process that still carries `tag` after its command ended: SIGTERM, then, for what is
 * left after `graceMs`, SIGSTOP (so nothing forks while it is being killed) and SIGKILL. Reports the
 * processes outside `group` (the command's own process group, which the runner stops itself).
 */
export async function stopLeftovers(
  tag: CommandTag,
  group: number | undefined,
  graceMs: number,
): Promise<LeftoverSweep> {
  const first = findTagged(tag);
  if (first === null) return { checked: false, stopped: [], children: 0 };
  const strays = first.filter((p) => p.group !== group);
  const strayPids = new Set(strays.map((p) => p.pid));
  const tops = strays.filter((p) => !strayPids.has(p.parent));
  const stopped = await Promise.all(
    tops.map(async (p) => ({ pid: p.pid, command: await commandLine(p.pid) })),
  );
  const result = { checked: true, stopped, children: strays.length - tops.length };
  if (first.length === 0) return result;
  signal(
    first.map((p) => p.pid),
    "SIGTERM",
  );
  const deadline = performance.now() + graceMs;
  let left = first;
  while (left.length > 0 && performance.now() < deadline) {
    await sleep(POLL_MS);
    left = findTagged(tag) ?? [];
  }
  // Freeze, then kill, until no tagged process is left (a loop may fork while it is being killed).
  for (let round = 0; left.length > 0 && round < 20; round++) {
    const pids = left.map((p) => p.pid);
    signal(pids, "SIGSTOP");
    signal(pids, "SIGKILL");
    await sleep(POLL_MS);
    left = findTagged(tag) ?? [];
  }
  return result;
}

/**
 * What the model is told about processes the command left behind: each one stopped, by pid and
 * command line; or that they could not be checked. Empty when there is nothing to say.
 */
export function describeLeftovers(sweep: LeftoverSweep, heldOutput: boolean): string {
  if (!sweep.checked) {
    return heldOutput
      ? "\n(A background process it started kept running outside nex's control; processes left outside the command's process group cannot be checked on this system.)"
      : "";
  }
  if (sweep.stopped.length === 0) {
    return heldOutput
      ? "\n(A background process it started kept running outside nex's control.)"
      : "";
  }
  const list = sweep.stopped.map((p) => `\n  pid ${p.pid}: ${p.command}`).join("");
  const more =
    sweep.children > 0
      ? `\n  and ${sweep.children} process${sweep.children === 1 ? "" : "es"} they had started`
      : "";
  const count = sweep.stopped.length === 1 ? "1 process" : `${sweep.stopped.length} processes`;
  return (
    `\nnex stopped ${count} that the command left running outside its process group (setsid, nohup, a double fork); ` +
    `whatever they were doing after the command ended did not finish:${list}${more}\n` +
    "Commands may not outlive the bash call: run the work in the foreground."
  );
}
