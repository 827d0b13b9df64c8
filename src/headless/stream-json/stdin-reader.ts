import { boundedLines, inputLineCap } from "../../runtime/session/index.ts";
import { answerControl, type ControlContext } from "./control.ts";
import { readInputLine } from "./input-line.ts";
import type { StreamJsonOptions, StreamState } from "./stream-state.ts";

/** Reads stdin line by line: user messages to the queue (or the running prompt), control requests answered, answers to nex's approval requests passed on. */
export async function readStreamInput(
  state: StreamState,
  options: StreamJsonOptions,
  control: ControlContext,
): Promise<void> {
  // Read with bounded memory: a line over the cap is dropped as it arrives, and reported.
  const lines = boundedLines(options.input, (number, bytes) => {
    const message = `stdin line ${number} is longer than ${inputLineCap()} (${bytes} bytes) and was skipped; send one message per line, each under ${inputLineCap()}`;
    options.err(`nex: ${message}.\n`);
    state.writeLine({ type: "system", subtype: "input_error", line: number, message });
  });
  try {
    for await (const { text: raw, number } of lines) {
      if (state.stoppedBy) break;
      if (raw.trim() === "") continue;
      const line = readInputLine(raw);
      switch (line.type) {
        case "user": {
          if (line.urgent) {
            // Ahead of the waiting prompts, and the running one is cancelled as Esc cancels it.
            state.urgent.push(line.text);
            if (state.running)
              state.opened?.session.interrupt(`an urgent message arrived (stdin line ${number})`);
            state.notify();
            break;
          }
          // "now" and "next" join the running prompt at its next turn boundary; else the queue.
          const note =
            state.running && line.priority !== "later" && state.opened
              ? (state.opened.session.queueNote?.(
                  line.text,
                  line.priority === "now" ? "steer" : "queued",
                ) ?? null)
              : null;
          if (note && "refused" in note)
            options.err(
              `nex: stdin line ${number}: ${note.refused}; it runs as the next prompt.\n`,
            );
          if (!note || "refused" in note) state.queue.push(line.text);
          state.notify();
          break;
        }
        case "control_request": {
          const answer = await answerControl(line.subtype, line.request, control).catch(
            (error: Error) => ({ ok: false as const, error: error.message }),
          );
          state.writeLine({
            type: "control_response",
            response: answer.ok
              ? { subtype: "success", request_id: line.requestId, response: answer.response }
              : { subtype: "error", request_id: line.requestId, error: answer.error },
          });
          break;
        }
        case "control_response":
          if (!state.bridge?.answer(line.requestId, line.ok, line.response, line.error))
            options.err(
              `nex: stdin line ${number} answers request "${line.requestId}", which nex did not ask; ignored.\n`,
            );
          break;
        case "ignored":
          break;
        case "invalid":
          options.err(`nex: stdin line ${number} ${line.message}; skipped.\n`);
          state.writeLine({
            type: "system",
            subtype: "input_error",
            line: number,
            message: `stdin line ${number} ${line.message}`,
          });
          break;
      }
    }
  } finally {
    state.inputClosed = true;
    state.bridge?.refuseAll("the orchestrator closed stdin before answering");
    state.notify();
  }
}
