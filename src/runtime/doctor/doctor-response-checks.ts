// The verdicts on `nex doctor`'s model requests: streaming, tool calls, limits, honest truncation.
// Pure functions over what the requests returned.
import { findTextToolCall } from "../../agent/text-tool-call.ts";
import type { ProviderError } from "../../protocol/index.ts";
import { plainText } from "../../protocol/index.ts";
import type { ResolvedLimits } from "../config/index.ts";
import {
  check,
  type DoctorCheck,
  PROBE_TOOL,
  PROBE_WORD,
  type ProbeResult,
  TRUNCATION_COUNT,
} from "./doctor-checks.ts";

/** Verdict 4: a tiny request ends with a proper finish reason and the stream's terminator. */
export function judgeStreaming(probe: ProbeResult, streaming: boolean): DoctorCheck {
  const mode = streaming ? "" : "streaming is off (`stream: false` in the config); ";
  if (probe.type === "error") {
    return check("streaming", "fail", `${mode}${probe.error.message}`, nextForError(probe.error));
  }
  const { turn, terminator } = probe;
  if (!turn.terminated) {
    // What the server said as it ended the stream (an error event) is the finding, in its words.
    const said = turn.dropDetail ? `: ${turn.dropDetail}` : "";
    const serverError = turn.dropDetail?.includes("reported an error") ?? false;
    return check(
      "streaming",
      "fail",
      `${mode}the response ended without its terminator (${terminator})${said}`,
      serverError
        ? "nex treats every tool call from such a response as cut and runs none. The server ended the stream with the error above: its log says more."
        : 'nex treats every tool call from such a response as cut and runs none. Check any proxy between nex and the server (it may cut or buffer event streams); `"stream": false` in the config asks for whole responses.',
    );
  }
  if (turn.rawStopReason === null) {
    return check(
      "streaming",
      "fail",
      `${mode}the response ended with ${terminator} but no finish reason`,
      'nex refuses tool calls from responses without a finish reason. Update the server, or try `"stream": false` in the config.',
    );
  }
  const usage = turn.usage
    ? `usage ${turn.usage.inputTokens} in / ${turn.usage.outputTokens} out`
    : "no usage";
  const found = `${mode}finish reason \`${turn.rawStopReason}\`, ${terminator}, ${usage}, ${turn.text.length} characters of text`;
  if (turn.stopReason === "content_filter" || turn.stopReason === "other") {
    return check(
      "streaming",
      "warn",
      found,
      `The finish reason \`${turn.rawStopReason}\` is not a normal end; nex refuses tool calls that end this way.`,
    );
  }
  if (!turn.usage) {
    return check(
      "streaming",
      "warn",
      found,
      "Without usage nex estimates token counts itself and cannot compare output to max_tokens; enable usage in streams on the server if it can.",
    );
  }
  return check("streaming", "pass", found);
}

/** Verdict 5: one trivial tool call comes back whole and strictly parsed. */
export function judgeToolCall(probe: ProbeResult): DoctorCheck {
  if (probe.type === "error") {
    return check(
      "tool_calls",
      "fail",
      probe.error.message,
      `The endpoint rejected a request with a tool definition. ${TOOL_SUPPORT_HINT}`,
    );
  }
  const [call] = probe.turn.toolCalls;
  if (!call && probe.turn.stopReason === "length") {
    return check(
      "tool_calls",
      "warn",
      `the answer hit the ${probe.turn.maxTokens}-token limit before any tool call`,
      "A reasoning model may think past a small limit; nex asks for far more in real requests. Run nex doctor again, or try the model in nex run.",
    );
  }
  const written = call ? null : findTextToolCall(probe.turn.text, [PROBE_TOOL]);
  const wrote = plainText(probe.turn.text).replace(/\s+/g, " ").trim().slice(0, 80);
  if (written?.marked) {
    return check(
      "tool_calls",
      "fail",
      `the model wrote its call as plain text ("${wrote}"): the server does not parse tool calls, so nex could run nothing`,
      "Start vLLM with --enable-auto-tool-choice and the model's --tool-call-parser, llama.cpp with --jinja, or use a chat template that supports tools.",
    );
  }
  if (written) {
    // A bare JSON object carries none of the chat format's call markers: the model wrote it outside
    // its format, which no server parses (Qwen2.5-Coder 0.5B on llama-server --jinja does this).
    return check(
      "tool_calls",
      "warn",
      `the model wrote its call as JSON in its answer ("${wrote}"), outside its chat format's tool-call syntax, so the server parsed no call`,
      "nex runs a reply that is nothing but such JSON calls, but models that do this misuse tools often: a model trained for tool calls does better. The server's settings are not the cause.",
    );
  }
  if (!call) {
    const said = plainText(probe.turn.text).replace(/\s+/g, " ").trim().slice(0, 80);
    return check(
      "tool_calls",
      "warn",
      `the model answered in text instead of calling the tool${said ? `: "${said}"` : ""}`,
      `nex works through tool calls. ${TOOL_SUPPORT_HINT}`,
    );
  }
  if (call.verdict.type === "poisoned" && call.verdict.cause === "output_limit") {
    return check(
      "tool_calls",
      "warn",
      `the call to ${call.name || "(no name)"} was cut: ${call.verdict.reason}`,
      "nex refuses cut calls (nothing runs). A reasoning model may think past a small limit; run nex doctor again, or try the model in nex run.",
    );
  }
  if (call.verdict.type === "poisoned") {
    return check(
      "tool_calls",
      "fail",
      `the call to ${call.name || "(no name)"} arrived malformed: ${call.verdict.reason}`,
      `nex refuses such calls (nothing runs) and tells the model; with every call malformed, it cannot work. ${TOOL_SUPPORT_HINT}`,
    );
  }
  const args = plainText(call.argumentsText).slice(0, 80);
  if (call.name !== PROBE_TOOL || call.verdict.args.word !== PROBE_WORD) {
    return check(
      "tool_calls",
      "warn",
      `a whole call came back, but not the one asked for: ${call.name || "(no name)"} ${args}`,
      "The model may be weak at following tool instructions; try a larger or instruction-tuned model.",
    );
  }
  if (call.verdict.recovery !== "strict") {
    return check(
      "tool_calls",
      "warn",
      `${call.name} ${args} arrived wrapped (${call.verdict.recovery === "fence" ? "in a code fence" : "inside other text"}); nex read it without changing a byte`,
      "Calls that need unwrapping are a sign of a loose tool-call parser on the server; check its tool-call settings.",
    );
  }
  return check("tool_calls", "pass", `${call.name} ${args}, whole and strictly parsed`);
}

const TOOL_SUPPORT_HINT =
  "Check that the server has tool calling turned on for this model (vLLM: --enable-auto-tool-choice and a --tool-call-parser; llama.cpp: --jinja; Ollama and LM Studio: a model with tool support).";

/** Verdict 6: the window and where it came from, and whether the output limit was accepted. */
export function judgeLimits(
  limits: ResolvedLimits,
  model: string,
  probe: ProbeResult,
): DoctorCheck {
  const window = `window ${limits.contextWindow} tokens ${limits.sourceDetail}`;
  if (
    probe.type === "error" &&
    (probe.error.code === "bad_request" || probe.error.code === "context_length")
  ) {
    return check(
      "limits",
      "fail",
      `${window}; a request with max_tokens ${limits.maxOutput} was refused: ${probe.error.message}`,
      `If the server allows less output, set "models": { "${model}": { "maxOutput": N } } in the config file (and "contextWindow" if the window is smaller).`,
    );
  }
  const output =
    probe.type === "turn"
      ? `output limit ${limits.maxOutput} tokens, accepted as max_tokens`
      : `output limit ${limits.maxOutput} tokens (not confirmed: the request failed)`;
  const found = `${window}; ${output}`;
  if (limits.source === "default") {
    return check(
      "limits",
      "warn",
      found,
      `Set "models": { "${model}": { "contextWindow": N } } in the config file to the window the server runs with.`,
    );
  }
  return check("limits", "pass", found);
}

/** Verdict 7: an answer cut by a tiny max_tokens must end with `length` / `max_tokens`. */
export function judgeTruncation(probe: ProbeResult): DoctorCheck {
  if (probe.type === "error") {
    return check(
      "truncation",
      "warn",
      `could not be tested: ${probe.error.message}`,
      "Fix the failure above and run nex doctor again.",
    );
  }
  const { turn } = probe;
  const raw = turn.rawStopReason ?? "(none)";
  const outputTokens = turn.usage?.outputTokens ?? null;
  const usage =
    outputTokens === null ? "no usage reported" : `usage says ${outputTokens} output tokens`;
  if (turn.stopReason === "length") {
    return check(
      "truncation",
      "pass",
      `an answer cut at max_tokens ${turn.maxTokens} ended with \`${raw}\` (${usage})`,
    );
  }
  const hitLimit = outputTokens !== null && outputTokens >= turn.maxTokens;
  const incomplete = !turn.text.includes(String(TRUNCATION_COUNT));
  const normal = turn.stopReason === "stop" || turn.stopReason === "tool_calls";
  if (normal && hitLimit) {
    return check(
      "truncation",
      "fail",
      `an answer cut at max_tokens ${turn.maxTokens} (${usage}) ended with \`${raw}\`, as if it were complete`,
      "The endpoint (or a gateway in front of it) relabels cut output as a normal stop. nex will rely on usage vs max_tokens to detect truncation, so a cut tool call is still refused; keep usage reporting on, and report the relabelling to the server's or gateway's maintainers.",
    );
  }
  if (normal && outputTokens === null && incomplete) {
    return check(
      "truncation",
      "fail",
      `an answer cut at max_tokens ${turn.maxTokens} ended with \`${raw}\`, as if it were complete, and no usage was reported`,
      "The endpoint relabels cut output as a normal stop and reports no usage, so nex cannot tell a cut answer from a finished one: a cut tool call is still refused when its arguments do not parse, but a cut text answer looks complete. Turn on usage reporting (stream usage) on the server, and report the relabelling to its maintainers.",
    );
  }
  if (normal) {
    return check(
      "truncation",
      "warn",
      `the model stopped on its own (\`${raw}\`, ${usage}) below max_tokens ${turn.maxTokens}, so truncation could not be observed`,
      "Nothing to fix in nex; run nex doctor again, or with another model, to see truncation reported.",
    );
  }
  return check(
    "truncation",
    "warn",
    `an answer cut at max_tokens ${turn.maxTokens} ended with \`${raw}\` (${usage})`,
    `\`${raw}\` is not a length stop; nex refuses tool calls that end this way, and relies on usage vs max_tokens to detect truncation.`,
  );
}

/** What to do after a model request failed, from its error code. */
function nextForError(error: ProviderError): string {
  switch (error.code) {
    case "rate_limited":
      return "The endpoint is rate limiting; wait and run nex doctor again.";
    case "not_found":
      return "Check the base URL (OpenAI-compatible servers usually end in /v1) and the model name.";
    case "bad_request":
      return "Read the server's message above: it usually names the setting it refused.";
    case "timeout":
    case "network":
    case "server_error":
      return "The server failed or stalled; check its logs, then run nex doctor again.";
    default:
      return "Read the message above, fix what it names, and run nex doctor again.";
  }
}
