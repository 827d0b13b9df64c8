// The process groups of the stdio servers this nex started: whatever way nex ends (a normal exit,
// a signal handler calling process.exit), none is left running.

const live = new Set<number>();
let hooked = false;

/**
 * Takes nex's exit and its signals before a server is spawned: without a listener a signal kills
 * nex at once, and one that came between the spawn and `trackGroup` would leave the server running.
 */
export function watchExit(): void {
  if (hooked) return;
  hooked = true;
  process.on("exit", stopAllNow);
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

/** Remembers a server's process group (its leader's pid) until it is seen to end. */
export function trackGroup(pid: number): void {
  watchExit();
  live.add(pid);
}

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

// A signal before nex has its own handlers (servers start before the run does) would kill nex and
// leave the servers running: stop them, then let the signal do what it would have done. Once nex
// handles the signal itself, it exits through process.exit, and the exit hook stops them.
function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  stopAllNow();
  for (const name of SIGNALS) process.off(name, onSignal);
  process.kill(process.pid, signal);
}

/** The group ended (or was stopped). */
export function untrackGroup(pid: number): void {
  live.delete(pid);
}

/** Signals a whole group; false when it is gone. */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

// At exit nothing asynchronous runs: SIGTERM, a short synchronous wait for the groups to go, then
// SIGKILL for the ones that ignore it.
function stopAllNow(): void {
  if (live.size === 0) return;
  for (const pid of live) signalGroup(pid, "SIGTERM");
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + 1_000;
  while (Date.now() < deadline && [...live].some((pid) => signalGroup(pid, 0)))
    Atomics.wait(sleeper, 0, 0, 20);
  for (const pid of live) signalGroup(pid, "SIGKILL");
  live.clear();
}
