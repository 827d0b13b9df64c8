import { onStopSignals, SIGNAL_EXIT } from "../../runtime/session/index.ts";
import { EXIT } from "../exit-code.ts";
import { terminalJson } from "../terminal-json.ts";
import type { ControlContext } from "./control.ts";
import type { StreamLine } from "./envelope.ts";
import { runPrompt } from "./prompt-runner.ts";
import { readStreamInput } from "./stdin-reader.ts";
import type { StreamJsonOptions, StreamState } from "./stream-state.ts";

export type { OpenedForStream, PromptFinisher, StreamJsonOptions } from "./stream-state.ts";

/**
 * Runs nex for an orchestrator that speaks Claude Code's stream-json: one JSON object per line on
 * stdout, a `result` line for every prompt, stdin read line by line in order. Returns the exit code
 * of the last prompt.
 */
export async function runStreamJson(options: StreamJsonOptions): Promise<number> {
  let wake: (() => void) | null = null;
  const state: StreamState = {
    settings: { ...options.settings },
    opened: null,
    envelope: null,
    bridge: null,
    stoppedBy: null,
    lastExit: EXIT.done,
    running: false,
    queue: [],
    urgent: [],
    inputClosed: options.prompt !== null,
    notify: () => {
      wake?.();
      wake = null;
    },
    writeLine: (line) => {
      if (options.format === "stream-json" || line.type === "result")
        options.out(`${terminalJson(line)}\n`);
    },
  };
  const { queue, urgent } = state;

  const control: ControlContext = {
    session: () => state.opened?.session ?? null,
    settings: state.settings,
    interrupt: (cancelQueued) => {
      const cancelled = cancelQueued
        ? queue.splice(0).length +
          urgent.splice(0).length +
          (state.opened?.session.takePendingNotes?.().length ?? 0)
        : 0;
      state.opened?.session.interrupt();
      return { cancelled };
    },
    model: () => state.opened?.session.info.model ?? state.settings.model ?? null,
    version: options.version,
  };

  const stopWatching = onStopSignals((signal, count) => {
    if (count === 1) {
      state.stoppedBy = signal;
      queue.length = 0;
      urgent.length = 0;
      state.inputClosed = true;
      state.notify();
      state.opened?.session.interrupt();
      return;
    }
    options.err(`nex: ${signal} again, exiting now.\n`);
    process.exit(SIGNAL_EXIT[state.stoppedBy ?? signal]);
  });

  const reading =
    options.prompt === null ? readStreamInput(state, options, control) : Promise.resolve();
  let prompts = 0;
  try {
    if (options.prompt !== null) {
      prompts = 1;
      await runPrompt(state, options, options.prompt);
    } else {
      for (;;) {
        const next = urgent.shift() ?? queue.shift();
        if (next !== undefined) {
          prompts += 1;
          await runPrompt(state, options, next);
          continue;
        }
        if (state.inputClosed) break;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    }
    await reading;
    if (prompts === 0 && !state.stoppedBy) {
      options.err(
        'nex: stdin closed before any user message; send lines such as {"type":"user","message":{"role":"user","content":"..."}}.\n',
      );
      return EXIT.usage;
    }
    return state.stoppedBy ? SIGNAL_EXIT[state.stoppedBy] : state.lastExit;
  } catch (error) {
    return reportOpenFailure(error, state.writeLine);
  } finally {
    // An early end (the session could not open, a signal) leaves nothing to read stdin for.
    if (!state.inputClosed) options.input.destroy();
    stopWatching();
    state.bridge?.close();
    await state.opened?.session.close();
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
