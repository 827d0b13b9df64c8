import type { AgentEvent } from "../protocol/index.ts";
import type { AgentSession } from "../runtime/agent-session.ts";
import { EXIT, exitCodeFor } from "./exit-code.ts";
import { createTextRenderer } from "./text-renderer.ts";

/** Options of headless mode. */
export interface HeadlessOptions {
  json: boolean;
  /** Events emitted before the task started (session start, resume fitting) to render first. */
  initialEvents?: AgentEvent[];
}

/**
 * Runs one task to its end and returns the exit code. Headless mode owns stdout: the final answer,
 * or JSON lines with `--json`; everything else goes to stderr. Ctrl-C cancels the request in flight
 * at once; a second Ctrl-C exits immediately.
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
  const out = (text: string) => {
    flush();
    process.stdout.write(text);
  };
  const render = options.json
    ? (event: AgentEvent) => out(`${JSON.stringify(event)}\n`)
    : createTextRenderer(session.info, { out, err });
  for (const event of options.initialEvents ?? []) render(event);
  const unsubscribe = session.subscribe(render);

  let interrupts = 0;
  const onInterrupt = () => {
    interrupts++;
    if (interrupts === 1) {
      session.interrupt();
      return;
    }
    err("nex: second interrupt, exiting now.\n");
    flush();
    process.exit(EXIT.interrupted);
  };
  process.on("SIGINT", onInterrupt);
  process.on("SIGTERM", onInterrupt);
  // A crash still shows the progress that led to it.
  process.on("exit", flush);
  try {
    const terminal = await session.submit(task);
    return exitCodeFor(terminal);
  } finally {
    process.off("SIGINT", onInterrupt);
    process.off("SIGTERM", onInterrupt);
    process.off("exit", flush);
    unsubscribe();
    await session.close();
    flush();
  }
}
