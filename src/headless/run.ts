import type { AgentEvent, TerminalEvent } from "../protocol/index.ts";
import { isTerminal } from "../protocol/index.ts";
import type { AgentSession } from "../runtime/session/index.ts";
import { onStopSignals, SIGNAL_EXIT, type StopSignal } from "../runtime/session/index.ts";
import { EXIT, exitCodeFor } from "./exit-code.ts";
import { createOutcomeTracker, outcomeLine, refusalLine } from "./run-outcome.ts";
import { terminalJson } from "./terminal-json.ts";
import { createTextRenderer } from "./text-renderer.ts";

/** Options of headless mode. */
export interface HeadlessOptions {
  json: boolean;
  /** Events emitted before the task started (session start, resume fitting) to render first. */
  initialEvents?: AgentEvent[];
  /**
   * Checks the finished task (an answer schema) and may run more of it; the answer is printed only
   * after it, and a failure it reports decides the exit code.
   */
  finish?: (session: AgentSession, terminal: TerminalEvent) => Promise<RunCheck>;
  /** True when the run was stopped because its time budget (`--max-time`) was spent. */
  timedOut?: () => boolean;
  /** A prompt to run next in the same run (an urgent inbox message that cancelled the turn), or null. */
  followUp?: () => string | null;
}

/** What a `finish` check concluded. */
export interface RunCheck {
  terminal?: TerminalEvent;
  failure?: { message: string; exitCode: number; outcome: string };
}

/**
 * Runs one task to its end and returns the exit code. Headless mode owns stdout: the final answer,
 * or JSON lines with `--json`; everything else goes to stderr. Ctrl-C, SIGTERM and SIGHUP cancel the
 * request in flight and stop running commands at once; a second signal exits immediately.
 */
export async function runHeadless(
  session: AgentSession,
  task: string,
  options: HeadlessOptions,
): Promise<number> {
  // Progress lines of one moment (a tool's result and the next request, say) go out in one write:
  // a write to a pipe or terminal costs a system call and wakes its reader. They are flushed on the
  // next turn of the event loop, before anything goes to stdout, and before this function returns.
  let pending = "";
  const flush = () => {
    if (pending === "") return;
    const text = pending;
    pending = "";
    process.stderr.write(text);
  };
  const err = (text: string) => {
    if (pending === "") setImmediate(flush);
    pending += text;
  };
  // With a check after the task, the text answer waits for it: stdout gets only the answer that passed.
  let heldAnswer: string | null = null;
  const out = (text: string) => {
    flush();
    if (options.finish && !options.json) heldAnswer = text;
    else process.stdout.write(text);
  };
  const tracker = createOutcomeTracker();
  let stoppedBy: StopSignal | null = null;
  const endOf = (event: AgentEvent & { type: "done" | "error" | "aborted" }) => {
    const outcome = tracker.outcome();
    // A run its time budget stopped exits 5 (as the process does), not as if a signal stopped it.
    const timedOut = options.timedOut?.() === true;
    return {
      outcome,
      exitCode: timedOut ? EXIT.timeLimit : exitCodeFor(event, { outcome, stoppedBy }),
    };
  };
  const text = options.json ? null : createTextRenderer(session.info, { out, err });
  // A terminal line waits for the run's end, when the files it changed are measured; what follows
  // it (a check's second prompt) waits behind it, in order.
  const held: AgentEvent[] = [];
  const render = (event: AgentEvent) => {
    tracker.see(event);
    if (text) return text(event);
    if (held.length > 0 || (isTerminal(event) && !event.agent)) held.push(event);
    else out(`${terminalJson(event)}\n`);
  };
  // The last line says how the run ended, as the exit status does, what changed and what was refused.
  const flushHeld = () => {
    for (const event of held.splice(0)) {
      const line = isTerminal(event) && !event.agent ? { ...event, ...endOf(event) } : event;
      out(`${terminalJson(line)}\n`);
    }
  };
  for (const event of options.initialEvents ?? []) render(event);
  const unsubscribe = session.subscribe(render);

  const stopWatching = onStopSignals((signal, count) => {
    if (count === 1) {
      stoppedBy = signal;
      // Ctrl-C is the user's; a TERM or HUP came from whatever runs nex.
      session.interrupt(signal === "SIGINT" ? undefined : `stopped by ${signal}`);
      return;
    }
    err(`nex: ${signal} again, exiting now.\n`);
    flush();
    process.exit(SIGNAL_EXIT[stoppedBy ?? signal]);
  });
  // A crash still shows the progress that led to it.
  process.on("exit", flush);
  try {
    const mark = (await session.changeMark?.().catch(() => null)) ?? null;
    let terminal = await session.submit(task);
    for (let next = options.followUp?.() ?? null; next !== null && stoppedBy === null; ) {
      terminal = await session.submit(next);
      next = options.followUp?.() ?? null;
    }
    const check =
      options.finish && stoppedBy === null ? await options.finish(session, terminal) : {};
    if (check.terminal) terminal = check.terminal;
    if (mark !== null)
      tracker.measured((await session.changesSince?.(mark).catch(() => null)) ?? null);
    flushHeld();
    const ended = endOf(terminal);
    const { outcome } = ended;
    const timedOut = options.timedOut?.() === true;
    const exitCode = check.failure
      ? check.failure.exitCode
      : timedOut
        ? EXIT.timeLimit
        : ended.exitCode;
    if (check.failure) {
      err(`nex: ${check.failure.message}\n`);
      if (heldAnswer !== null) err(`nex: the last answer was:\n${heldAnswer}`);
      if (options.json)
        out(`${terminalJson({ type: "run_failed", message: check.failure.message, exitCode })}\n`);
    } else if (heldAnswer !== null) process.stdout.write(heldAnswer);
    if (text && terminal.type === "done") {
      const line = refusalLine(outcome, session.info);
      if (line) err(`${line}\n`);
    }
    if (text) {
      const word = check.failure?.outcome ?? (timedOut ? "max_time" : undefined);
      err(
        `${outcomeLine(terminal, outcome, { exitCode, sessionId: session.info.sessionId, word })}\n`,
      );
    }
    return exitCode;
  } finally {
    flushHeld();
    stopWatching();
    process.off("exit", flush);
    unsubscribe();
    await session.close();
    flush();
  }
}
