import { type LoopOptions, type RequestBudget, runLoop } from "../../src/agent/loop.ts";
import type {
  AgentEvent,
  AssembledToolCall,
  AssembledTurn,
  ModelRequest,
  PermissionCheck,
  ProviderEvent,
  StreamFn,
  ToolHost,
  ToolInvocation,
  ToolOutcome,
} from "../../src/protocol/index.ts";

/** A stream function that answers each request with the next scripted result and records requests. */
export function scriptedStream(script: Array<(req: ModelRequest) => ProviderEvent[]>): {
  stream: StreamFn;
  requests: ModelRequest[];
} {
  const requests: ModelRequest[] = [];
  const stream: StreamFn = async function* (req) {
    requests.push(req);
    const next = script[requests.length - 1];
    yield { type: "attempt_started", attempt: 1, host: "fake" };
    if (!next) {
      yield {
        type: "error",
        error: { code: "server_error", retryable: false, message: "script exhausted" },
      };
      return;
    }
    yield* next(req);
  };
  return { stream, requests };
}

export function turn(partial: Partial<AssembledTurn>): AssembledTurn {
  return {
    text: "",
    toolCalls: [],
    stopReason: "stop",
    rawStopReason: "stop",
    terminated: true,
    usage: { inputTokens: 100, outputTokens: 10 },
    maxTokens: 4096,
    ...partial,
  };
}

export function wholeCall(
  id: string,
  name: string,
  args: Record<string, unknown>,
): AssembledToolCall {
  return {
    id,
    name,
    argumentsText: JSON.stringify(args),
    verdict: { type: "whole", args, recovery: "strict" },
  };
}

export function cutCall(id: string, name: string, text: string): AssembledToolCall {
  return {
    id,
    name,
    argumentsText: text,
    verdict: {
      type: "poisoned",
      cause: "output_limit",
      reason: "output was cut off at the 4096-token output limit while writing `content`",
      bytesReceived: Buffer.byteLength(text),
    },
  };
}

/** Tools that record what they were asked to run. */
export function recordingTools(
  options: {
    permission?: (call: ToolInvocation) => PermissionCheck;
    execute?: (call: ToolInvocation) => ToolOutcome;
  } = {},
): ToolHost & { executed: ToolInvocation[] } {
  const executed: ToolInvocation[] = [];
  return {
    executed,
    specs: () => [{ name: "write_file", description: "writes", parameters: { type: "object" } }],
    permission: async (call) => options.permission?.(call) ?? { type: "allow" },
    rememberApproval: () => {},
    execute: async (call) => {
      executed.push(call);
      return options.execute?.(call) ?? { isError: false, content: "ok" };
    },
  };
}

export function budget(overrides: Partial<RequestBudget> = {}): RequestBudget {
  return {
    estimatePrompt: () => 1000,
    maxTokensFor: () => 4096,
    largestMaxTokensFor: () => 4096,
    correctWindow: () => {},
    ...overrides,
  };
}

/** Runs the loop to its end with test defaults; returns every event and the last one. */
export async function runLoopWith(
  prompt: string,
  options: Partial<LoopOptions> & Pick<LoopOptions, "stream" | "tools">,
) {
  let id = 0;
  const events: AgentEvent[] = [];
  const loop = runLoop(prompt, {
    model: "m",
    system: "sys",
    messages: [],
    budget: budget(),
    compact: null,
    approve: async () => ({ type: "allow_once" }),
    maxTurns: 50,
    signal: new AbortController().signal,
    nextRequestId: () => ++id,
    ...options,
  });
  for await (const event of loop) events.push(event);
  return { events, terminal: events.at(-1) };
}
