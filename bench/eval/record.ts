// What one nex run did, read from its `--json` event lines: requests, tokens, tool calls that were
// refused or failed (with the cause nex gave), request failures, and how it ended.

export interface ToolProblem {
  tool: string;
  /** `refused:<cause>` (nex did not run it) or `failed:<code>` (it ran and failed). */
  kind: string;
  /** The first line of what the model was told. */
  message: string;
}

export interface RequestProblem {
  status: number | null;
  code: string;
  message: string;
  retried: boolean;
}

export interface RunRecord {
  /** Model requests started (each retry attempt counts). */
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  toolCalls: number;
  toolProblems: ToolProblem[];
  requestProblems: RequestProblem[];
  /** Notices nex showed (a change of tack, a window warning...). */
  notices: string[];
  /** done / error / aborted, or `none` when the stream had no terminal event (nex crashed or was killed). */
  end: "done" | "error" | "aborted" | "none";
  /** The error's code and message when it ended in error or was aborted. */
  endDetail: string;
  answer: string;
  turns: number;
  contextWindow: number | null;
  /** Output lines that were not JSON events (should be none). */
  strayLines: number;
}

type Event = Record<string, unknown> & { type?: string };

export function readRecord(jsonLines: string): RunRecord {
  const record: RunRecord = {
    requests: 0,
    inputTokens: 0,
    outputTokens: 0,
    cachedTokens: 0,
    toolCalls: 0,
    toolProblems: [],
    requestProblems: [],
    notices: [],
    end: "none",
    endDetail: "",
    answer: "",
    turns: 0,
    contextWindow: null,
    strayLines: 0,
  };
  for (const line of jsonLines.split("\n")) {
    if (line.trim() === "") continue;
    let event: Event;
    try {
      event = JSON.parse(line) as Event;
    } catch {
      record.strayLines += 1;
      continue;
    }
    take(record, event);
  }
  return record;
}

function take(record: RunRecord, event: Event): void {
  switch (event.type) {
    case "session_started":
      record.contextWindow = Number(event.contextWindow) || null;
      return;
    case "request_started":
      record.requests += 1;
      return;
    case "request_finished": {
      const usage = event.usage as Record<string, number> | null;
      if (!usage) return;
      record.inputTokens += usage.inputTokens ?? 0;
      record.outputTokens += usage.outputTokens ?? 0;
      record.cachedTokens += usage.cacheReadTokens ?? 0;
      return;
    }
    case "request_failed":
      record.requestProblems.push({
        status: (event.status as number | null) ?? null,
        code: String(event.code),
        message: firstLine(event.message),
        retried: event.retryInMs !== null,
      });
      return;
    case "tool_call_started":
      if (!event.agent) record.toolCalls += 1;
      return;
    case "tool_call_refused":
      record.toolProblems.push({
        tool: String(event.name),
        kind: `refused:${String(event.cause)}`,
        message: firstLine(event.reason),
      });
      return;
    case "tool_result":
      if (event.isError)
        record.toolProblems.push({
          tool: String(event.name),
          kind: `failed:${String(event.code ?? "error")}`,
          message: firstLine(event.content),
        });
      return;
    case "notice":
      record.notices.push(firstLine(event.message));
      return;
    case "done":
      if (event.agent) return;
      record.end = "done";
      record.answer = String(event.finalText ?? "");
      record.turns = Number(event.turns) || 0;
      return;
    case "error":
    case "aborted":
      if (event.agent) return;
      record.end = event.type;
      record.endDetail =
        event.type === "error"
          ? `${String(event.code)}: ${firstLine(event.message)}`
          : firstLine(event.reason);
      return;
  }
}

function firstLine(value: unknown): string {
  const text = String(value ?? "").trim();
  const line = text.split("\n").find((part) => part.trim() !== "") ?? "";
  return line.length > 240 ? `${line.slice(0, 240)}…` : line;
}
