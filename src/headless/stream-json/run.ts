import type { Readable } from "node:stream";
import type { AgentEvent, TerminalEvent } from "../../protocol/index.ts";
import { plainText } from "../../protocol/index.ts";
import {
  type AgentSession,
  boundedLines,
  inputLineCap,
  onStopSignals,
  SIGNAL_EXIT,
  type StopSignal,
} from "../../runtime/session/index.ts";
import { EXIT, exitCodeFor } from "../exit-code.ts";
import { createOutcomeTracker } from "../run-outcome.ts";
import { terminalJson } from "../terminal-json.ts";
import { answerControl, type ControlContext, type SessionSettings } from "./control.ts";
import { createEnvelope, type PromptEnd, type StreamLine } from "./envelope.ts";
import { readInputLine } from "./input-line.ts";
import { createPermissionBridge } from "./permission-bridge.ts";

/** A session opened for a stream-json run. */
export interface OpenedForStream {
  session: AgentSession;
  events: AgentEvent[];
  tools: string[];
}

/** What a prompt's end may add beyond its terminal event (an answer checked against a schema). */
export type PromptFinisher = (
  session: AgentSession,
  terminal: TerminalEvent,
) => Promise<Pick<PromptEnd, "structuredOutput" | "failure"> & { terminal?: TerminalEvent }>;

/** How to run. */
export interface StreamJsonOptions {
  /** Opens the session with what the command line and the orchestrator's initialize set. */
  open: (
    settings: SessionSettings,
    approvals: "refuse" | "interactive",
  ) => Promise<OpenedForStream>;
  /** The one prompt, or null to read user messages from `input` (`--input-format stream-json`). */
  prompt: string | null;
  /** `stream-json`: every line; `json`: only the result, as Claude Code prints it. */
  format: "stream-json" | "json";
  partial: boolean;
  /** The orchestrator answers approvals over the stream (`--permission-prompt-tool stdio`). */
  permissionPrompts: boolean;
  version: string;
  settings: SessionSettings;
  finish?: PromptFinisher;
  /** Added to each prompt (what the final answer must be); read when the prompt runs. */
  promptSuffix?: () => string | null;
  input: Readable;
  out: (text: string) => void;
  err: (text: string) => void;
}

/**
 * Runs nex for an orchestrator that speaks Claude Code's stream-json: one JSON object per line on
 * stdout, a `result` line for every prompt, stdin read line by line in order. Returns the exit code
 * of the last prompt.
 */
export async function runStreamJson(options: StreamJsonOptions): Promise<number> {
  const writeLine = (line: StreamLine) => {
    if (options.format === "stream-json" || line.type === "result")
      options.out(`${terminalJson(line)}\n`);
  };
  const settings: SessionSettings = { ...options.settings };
  let opened: OpenedForStream | null = null;
  let envelope: ReturnType<typeof createEnvelope> | null = null;
  let bridge: ReturnType<typeof createPermissionBridge> | null = null;
  let stoppedBy: StopSignal | null = null;
  let lastExit: number = EXIT.done;
  const queue: string[] = [];
  /** Urgent messages: run before the queue, and before what the cancelled prompt left. */
  const urgent: string[] = [];
  let wake: (() => void) | null = null;
  let inputClosed = options.prompt !== null;
  const notify = () => {
    wake?.();
    wake = null;
  };

  const openOnce = async (): Promise<OpenedForStream> => {
    if (opened) return opened;
    const approvals = options.permissionPrompts ? "interactive" : "refuse";
    opened = await options.open(settings, approvals);
    const { session } = opened;
    envelope = createEnvelope({
      info: session.info,
      tools: opened.tools,
      partial: options.partial,
      version: options.version,
      write: writeLine,
    });
    session.subscribe((event) => {
      envelope?.see(event);
      if (event.type === "notice") options.err(`nex: ${plainText(event.message)}\n`);
    });
    for (const event of opened.events)
      if (event.type === "notice" || event.type === "context_fitted")
        options.err(`nex: ${plainText(event.type === "notice" ? event.message : event.line)}\n`);
    if (options.permissionPrompts) bridge = createPermissionBridge(session, writeLine);
    envelope.init();
    return opened;
  };

  let running = false;
  const runPrompt = async (prompt: string) => {
    const { session } = await openOnce();
    running = true;
    const tracker = createOutcomeTracker();
    const stop = session.subscribe((event) => tracker.see(event));
    envelope?.beginPrompt();
    try {
      const mark = (await session.changeMark?.().catch(() => null)) ?? null;
      const suffix = options.promptSuffix?.() ?? null;
      let terminal = await session.submit(suffix ? `${prompt}\n\n${suffix}` : prompt);
      const extra = options.finish && !stoppedBy ? await options.finish(session, terminal) : {};
      if (extra.terminal) terminal = extra.terminal;
      if (mark !== null)
        tracker.measured((await session.changesSince?.(mark).catch(() => null)) ?? null);
      const outcome = tracker.outcome();
      let exitCode = exitCodeFor(terminal, { outcome, stoppedBy });
      if (extra.failure) exitCode = extra.failure.exitCode;
      // Exit 4 says "approval was needed and nobody could give it"; here the orchestrator answered.
      if (options.permissionPrompts && exitCode === EXIT.nothingChanged) exitCode = EXIT.done;
      lastExit = exitCode;
      const end: PromptEnd = { terminal, outcome, exitCode };
      if (extra.structuredOutput !== undefined) end.structuredOutput = extra.structuredOutput;
      if (extra.failure) end.failure = extra.failure;
      if (envelope) writeLine(envelope.result(end));
    } finally {
      running = false;
      stop();
      // Messages meant for a turn boundary the prompt never reached: the next prompt, as one.
      const left = session.takePendingNotes?.() ?? [];
      if (left.length > 0 && !stoppedBy) queue.unshift(left.map((note) => note.text).join("\n\n"));
    }
  };

  const control: ControlContext = {
    session: () => opened?.session ?? null,
    settings,
    interrupt: (cancelQueued) => {
      const cancelled = cancelQueued
        ? queue.splice(0).length +
          urgent.splice(0).length +
          (opened?.session.takePendingNotes?.().length ?? 0)
        : 0;
      opened?.session.interrupt();
      return { cancelled };
    },
    model: () => opened?.session.info.model ?? settings.model ?? null,
    version: options.version,
  };

  const stopWatching = onStopSignals((signal, count) => {
    if (count === 1) {
      stoppedBy = signal;
      queue.length = 0;
      urgent.length = 0;
      inputClosed = true;
      notify();
      opened?.session.interrupt();
      return;
    }
    options.err(`nex: ${signal} again, exiting now.\n`);
    process.exit(SIGNAL_EXIT[stoppedBy ?? signal]);
  });

  const reading = options.prompt === null ? readInput() : Promise.resolve();
  let prompts = 0;
  try {
    if (options.prompt !== null) {
      prompts = 1;
      await runPrompt(options.prompt);
    } else {
      for (;;) {
        const next = urgent.shift() ?? queue.shift();
        if (next !== undefined) {
          prompts += 1;
          await runPrompt(next);
          continue;
        }
        if (inputClosed) break;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    }
    await reading;
    if (prompts === 0 && !stoppedBy) {
      options.err(
        'nex: stdin closed before any user message; send lines such as {"type":"user","message":{"role":"user","content":"..."}}.\n',
      );
      return EXIT.usage;
    }
    return stoppedBy ? SIGNAL_EXIT[stoppedBy] : lastExit;
  } catch (error) {
    return reportOpenFailure(error, writeLine);
  } finally {
    // An early end (the session could not open, a signal) leaves nothing to read stdin for.
    if (!inputClosed) options.input.destroy();
    stopWatching();
    (bridge as ReturnType<typeof createPermissionBridge> | null)?.close();
    await (opened as OpenedForStream | null)?.session.close();
  }

  async function readInput(): Promise<void> {
    // Read with bounded memory: a line over the cap is dropped as it arrives, and reported.
    const lines = boundedLines(options.input, (number, bytes) => {
      const message = `stdin line ${number} is longer than ${inputLineCap()} (${bytes} bytes) and was skipped; send one message per line, each under ${inputLineCap()}`;
      options.err(`nex: ${message}.\n`);
      writeLine({ type: "system", subtype: "input_error", line: number, message });
    });
    try {
      for await (const { text: raw, number } of lines) {
        if (stoppedBy) break;
        if (raw.trim() === "") continue;
        const line = readInputLine(raw);
        switch (line.type) {
          case "user": {
            if (line.urgent) {
              // Ahead of the waiting prompts, and the running one is cancelled as Esc cancels it.
              urgent.push(line.text);
              if (running)
                opened?.session.interrupt(`an urgent message arrived (stdin line ${number})`);
              notify();
              break;
            }
            // "now" and "next" join the running prompt at its next turn boundary; else the queue.
            const note =
              running && line.priority !== "later" && opened
                ? (opened.session.queueNote?.(
                    line.text,
                    line.priority === "now" ? "steer" : "queued",
                  ) ?? null)
                : null;
            if (note && "refused" in note)
              options.err(
                `nex: stdin line ${number}: ${note.refused}; it runs as the next prompt.\n`,
              );
            if (!note || "refused" in note) queue.push(line.text);
            notify();
            break;
          }
          case "control_request": {
            const answer = await answerControl(line.subtype, line.request, control).catch(
              (error: Error) => ({ ok: false as const, error: error.message }),
            );
            writeLine({
              type: "control_response",
              response: answer.ok
                ? { subtype: "success", request_id: line.requestId, response: answer.response }
                : { subtype: "error", request_id: line.requestId, error: answer.error },
            });
            break;
          }
          case "control_response":
            if (!bridge?.answer(line.requestId, line.ok, line.response, line.error))
              options.err(
                `nex: stdin line ${number} answers request "${line.requestId}", which nex did not ask; ignored.\n`,
              );
            break;
          case "ignored":
            break;
          case "invalid":
            options.err(`nex: stdin line ${number} ${line.message}; skipped.\n`);
            writeLine({
              type: "system",
              subtype: "input_error",
              line: number,
              message: `stdin line ${number} ${line.message}`,
            });
            break;
        }
      }
    } finally {
      inputClosed = true;
      bridge?.refuseAll("the orchestrator closed stdin before answering");
      notify();
    }
  }
}

/** A session that could not open still ends the stream with a result line, then the error is rethrown for the exit code. */
function reportOpenFailure(error: unknown, writeLine: (line: StreamLine) => void): never {
  writeLine({
    type: "result",
    subtype: "error_during_execution",
    is_error: true,
    duration_ms: 0,
    duration_api_ms: 0,
    num_turns: 0,
    stop_reason: null,
    total_cost_usd: 0,
    usage: {
      input_tokens: 0,
      output_tokens: 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
    modelUsage: {},
    permission_denials: [],
    errors: [(error as Error).message],
    session_id: "",
    uuid: crypto.randomUUID(),
  });
  throw error;
}
