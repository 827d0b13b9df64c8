import { runLoop } from "../../agent/loop.ts";
import { SUBAGENT_WORDS } from "../../agent/stop-words.ts";
import type {
  AgentEvent,
  AgentTag,
  Message,
  PermissionAnswer,
  StreamFn,
  TerminalEvent,
  ToolHost,
} from "../../protocol/index.ts";
import { createSessionBudget } from "../context/index.ts";

/** What a child agent takes from the session that starts it: the same endpoint, tools and user. */
export interface ChildParent {
  stream(): StreamFn;
  model(): string;
  window(): number;
  maxOutput(): number;
  /** The session's tools for a child: its calls in the parent's turn, under its own read ledger. */
  tools(agent: string, turn: number): ToolHost;
  approve(callId: string, signal: AbortSignal): Promise<PermissionAnswer>;
  emit(event: AgentEvent): void;
  nextRequestId(): number;
  /** The session's running summary (`<id>.summary.md`), or null: a delegated child starts from it. */
  summary(): Promise<string | null>;
}

/** One child run: who it is, what it may use, and its bounds. */
export interface ChildSpec {
  tag: AgentTag;
  /** The parent's turn the child's changes belong to (undo takes them with the parent's prompt). */
  turn: number;
  system: string;
  prompt: string;
  /** The tools it may call; null for none (a single answer, as `summarize` asks for). */
  allowed: ((name: string, readOnly: boolean) => boolean) | null;
  /** Its own small tool set instead of the session's (the reader's next_chunk, notes, finish). */
  host?: ToolHost;
  maxTurns: number;
  signal: AbortSignal;
}

/** How a child ended, and what it changed. */
export interface ChildResult {
  terminal: TerminalEvent;
  /** The last text it wrote (its answer when it finished). */
  text: string;
  /** Files it wrote or edited, as shown to the model. */
  changed: string[];
  /** Commands it ran (they may have changed files too; undo covers them). */
  commands: number;
}

/** Runs a child through the same loop, integrity checks and permissions as the session's own prompts. */
export async function runChild(parent: ChildParent, spec: ChildSpec): Promise<ChildResult> {
  const { tag } = spec;
  const base = spec.host ?? parent.tools(tag.id, spec.turn);
  const allowed = (name: string) => spec.allowed?.(name, base.readOnly?.(name) ?? false) ?? false;
  const notAllowed = (name: string) =>
    `${name} is not one of this agent's tools (${tag.kind}); use the tools you were given.`;
  const host: ToolHost = {
    specs: () => base.specs().filter((tool) => allowed(tool.name)),
    readOnly: (name) => base.readOnly?.(name) ?? false,
    parallel: (name) => base.parallel?.(name) ?? base.readOnly?.(name) ?? false,
    // A tool outside the child's set is not a permission matter (nothing to ask the user): the
    // call fails as an unknown tool would, and the refusal tracker bounds a child that insists.
    permission: async (call) => {
      if (!allowed(call.name)) return { type: "allow" };
      const check = await base.permission(call);
      // The user sees whose call it is.
      return check.type === "ask"
        ? { ...check, summary: `${tag.id} (${tag.kind}): ${check.summary}` }
        : check;
    },
    rememberApproval: (call) => base.rememberApproval(call),
    execute: async (call, signal) => {
      if (allowed(call.name)) return base.execute(call, signal);
      // A name no tool has (a small model names calls after the task's words) hears this agent's
      // tools and, from the loop, what it probably meant; one the session has is only not this agent's.
      const invented = !base.specs().some((tool) => tool.name === call.name);
      const mine = host.specs().map((tool) => tool.name);
      return {
        isError: true,
        code: "denied",
        content: invented
          ? `There is no tool named ${call.name}. This agent's tools (${tag.kind}) are: ${mine.join(", ")}.`
          : notAllowed(call.name),
        ...(invented ? { unknownTool: true as const } : {}),
      };
    },
    ...(base.unfinishedWrites ? { unfinishedWrites: base.unfinishedWrites } : {}),
    ...(base.discardUnfinished ? { discardUnfinished: base.discardUnfinished } : {}),
    ...(base.filesNamed ? { filesNamed: base.filesNamed.bind(base) } : {}),
  };
  const messages: Message[] = [];
  const budget = createSessionBudget({
    window: parent.window(),
    maxOutput: parent.maxOutput(),
    tools: () => host.specs(),
  });
  // Call ids come from the model and repeat across agents: a child's are made unique for the UIs
  // and for the answers to its permission requests.
  const own = (callId: string) => `${tag.id}.${callId}`;
  const loop = runLoop(spec.prompt, {
    stream: parent.stream(),
    tools: host,
    model: parent.model(),
    system: spec.system,
    messages,
    budget,
    compact: null,
    approve: (request, signal) => parent.approve(own(request.callId), signal),
    maxTurns: spec.maxTurns,
    // Its stops are read by the parent model, which cannot resume it or pass --max-turns.
    words: SUBAGENT_WORDS,
    signal: spec.signal,
    nextRequestId: () => parent.nextRequestId(),
  });
  const changed = new Set<string>();
  let commands = 0;
  let text = "";
  let terminal: TerminalEvent | null = null;
  for await (const event of loop) {
    if (event.type === "request_finished" && event.usage)
      budget.observeUsage(event.usage.inputTokens, 0, messages.length);
    if (event.type === "message_added" && event.message.type === "assistant" && event.message.text)
      text = event.message.text;
    if (event.type === "tool_result" && !event.isError) {
      if (event.details?.type === "write" || event.details?.type === "edit")
        changed.add(event.details.path);
      if (event.details?.type === "bash") commands++;
    }
    if (event.type === "done" || event.type === "error" || event.type === "aborted")
      terminal = event;
    parent.emit({ ...withOwnIds(event, own), agent: tag });
  }
  return {
    terminal: terminal ?? {
      type: "error",
      code: "internal",
      message: "The child agent's loop ended without a result; this is a bug in nex.",
    },
    text: terminal?.type === "done" ? terminal.finalText : text,
    changed: [...changed],
    commands,
  };
}

function withOwnIds(event: AgentEvent, own: (callId: string) => string): AgentEvent {
  switch (event.type) {
    case "tool_call_started":
    case "tool_call_refused":
    case "permission_requested":
    case "tool_result":
      return { ...event, callId: own(event.callId) };
    default:
      return event;
  }
}
