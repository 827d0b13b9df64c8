import { plainText } from "../../protocol/index.ts";
import { EXIT, exitCodeFor } from "../exit-code.ts";
import { createOutcomeTracker } from "../run-outcome.ts";
import { createEnvelope, type PromptEnd } from "./envelope.ts";
import { createPermissionBridge } from "./permission-bridge.ts";
import type { OpenedForStream, StreamJsonOptions, StreamState } from "./stream-state.ts";

/** Opens the session on the first prompt (or control request that needs it), once. */
export async function openOnce(
  state: StreamState,
  options: StreamJsonOptions,
): Promise<OpenedForStream> {
  if (state.opened) return state.opened;
  const approvals = options.permissionPrompts ? "interactive" : "refuse";
  const opened = await options.open(state.settings, approvals);
  state.opened = opened;
  const { session } = opened;
  const envelope = createEnvelope({
    info: session.info,
    tools: opened.tools,
    partial: options.partial,
    version: options.version,
    write: state.writeLine,
  });
  session.subscribe((event) => {
    envelope.see(event);
    if (event.type === "notice") options.err(`nex: ${plainText(event.message)}\n`);
  });
  for (const event of opened.events)
    if (event.type === "notice" || event.type === "context_fitted")
      options.err(`nex: ${plainText(event.type === "notice" ? event.message : event.line)}\n`);
  state.envelope = envelope;
  if (options.permissionPrompts) state.bridge = createPermissionBridge(session, state.writeLine);
  envelope.init();
  return opened;
}

/** Runs one prompt to its result line; notes it never reached go back to the head of the queue. */
export async function runPrompt(
  state: StreamState,
  options: StreamJsonOptions,
  prompt: string,
): Promise<void> {
  const { session } = await openOnce(state, options);
  state.running = true;
  const tracker = createOutcomeTracker();
  const stop = session.subscribe((event) => tracker.see(event));
  state.envelope?.beginPrompt();
  try {
    const mark = (await session.changeMark?.().catch(() => null)) ?? null;
    const suffix = options.promptSuffix?.() ?? null;
    let terminal = await session.submit(suffix ? `${prompt}\n\n${suffix}` : prompt);
    const extra = options.finish && !state.stoppedBy ? await options.finish(session, terminal) : {};
    if (extra.terminal) terminal = extra.terminal;
    if (mark !== null)
      tracker.measured((await session.changesSince?.(mark).catch(() => null)) ?? null);
    const outcome = tracker.outcome();
    let exitCode = exitCodeFor(terminal, { outcome, stoppedBy: state.stoppedBy });
    if (extra.failure) exitCode = extra.failure.exitCode;
    // Exit 4 says "approval was needed and nobody could give it"; here the orchestrator answered.
    if (options.permissionPrompts && exitCode === EXIT.nothingChanged) exitCode = EXIT.done;
    state.lastExit = exitCode;
    const end: PromptEnd = { terminal, outcome, exitCode };
    if (extra.structuredOutput !== undefined) end.structuredOutput = extra.structuredOutput;
    if (extra.failure) end.failure = extra.failure;
    if (state.envelope) state.writeLine(state.envelope.result(end));
  } finally {
    state.running = false;
    stop();
    // Messages meant for a turn boundary the prompt never reached: the next prompt, as one.
    const left = session.takePendingNotes?.() ?? [];
    if (left.length > 0 && !state.stoppedBy)
      state.queue.unshift(left.map((note) => note.text).join("\n\n"));
  }
}
