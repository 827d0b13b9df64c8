// One nex session seen through ACP: its events become `session/update`s, its approvals become
// `session/request_permission`, and prompts, cancels and modes from the editor drive it.
import type {
  AgentContext,
  ContentBlock,
  PromptResponse,
  SessionUpdate,
  ToolCallContent,
} from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";
import type { AgentEvent, StopReason as TurnStopReason } from "../protocol/index.ts";
import type { NexSession } from "../runtime/session/index.ts";
import { type ChangeView, changeMade, changeProposed } from "./changes.ts";
import { workspaceTextNow } from "./file-text.ts";
import { modeOf, modeState } from "./modes.ts";
import { answerOf, PERMISSION_OPTIONS, rejectionKey } from "./permission.ts";
import { promptText } from "./prompt-content.ts";
import { replayUpdates } from "./replay.ts";
import { promptEnd } from "./stop-reason.ts";
import { kindOf, locationsOf, parseArguments, titleOf } from "./tool-calls.ts";
import { firstChangedLine, shown, textBlock, textContent } from "./updates.ts";

// The loop's words when a model refuses (`done` carries the refusal as its answer).
const REFUSAL_NOTICE = "The model refused the request";

interface CallState {
  name: string;
  args: Record<string, unknown>;
  announced: boolean;
  /** It ended (refused, or ran): a question about it now would ask about nothing. */
  settled?: boolean;
  /** The file before a write or edit ran: text, null (absent), undefined (not shown). */
  before?: Promise<string | null | undefined>;
}

/** What the bridge needs of the connection. */
export interface BridgeOptions {
  client: AgentContext;
  /** The editor shows `notice` updates (it said so in `initialize`). */
  notices: boolean;
  log: (line: string) => void;
}

export class SessionBridge {
  readonly session: NexSession;
  private readonly options: BridgeOptions;
  private readonly calls = new Map<string, CallState>();
  private readonly rejected = new Set<string>();
  private readonly unsubscribe: () => void;
  /** Notifications go out one after another, in the order of the events. */
  private outbox: Promise<void> = Promise.resolve();
  private prompting = false;
  /** The running prompt's end, for an urgent prompt to wait out after cancelling it. */
  private ended: Promise<unknown> = Promise.resolve();
  private cancelled = false;
  private lastStop: TurnStopReason | null = null;
  private refused = false;

  constructor(session: NexSession, options: BridgeOptions) {
    this.session = session;
    this.options = options;
    this.unsubscribe = session.subscribe((event) => this.onEvent(event));
  }

  get sessionId(): string {
    return this.session.info.sessionId;
  }

  modes() {
    return modeState(this.session.info.permissionMode);
  }

  /** Runs one prompt to its end; updates stream meanwhile, and all of them precede the answer. */
  async prompt(blocks: ContentBlock[], urgent = false): Promise<PromptResponse> {
    const prompt = promptText(blocks);
    if (prompt.type === "unsupported") throw RequestError.invalidParams(undefined, prompt.message);
    // An urgent prompt (`_meta.urgent`) cancels the running one, as session/cancel does, and runs next.
    if (this.prompting && urgent) {
      this.cancel();
      await this.ended;
    }
    if (this.prompting)
      throw new RequestError(
        -32000,
        "A prompt is already running in this session; wait for its answer, cancel it first, or send this one with _meta.urgent.",
      );
    const { promise, resolve } = Promise.withResolvers<void>();
    this.ended = promise;
    this.prompting = true;
    this.cancelled = false;
    this.lastStop = null;
    this.refused = false;
    let terminal: Awaited<ReturnType<NexSession["submit"]>>;
    // Read before an urgent prompt waiting for this one starts and resets it.
    let cancelled = false;
    try {
      terminal = await this.session.submit(prompt.text);
    } finally {
      this.prompting = false;
      cancelled = this.cancelled;
      resolve();
    }
    await this.outbox;
    if (cancelled && terminal.type !== "done") return { stopReason: "cancelled" };
    const end = promptEnd(terminal, this.lastStop, this.refused);
    if (end.type === "error") throw new RequestError(-32603, end.message, { nexCode: end.code });
    // A cut or filtered answer ends with a reason ACP names; nex's sentence says what to do next.
    if (terminal.type === "error") {
      this.say(terminal.message);
      await this.outbox;
    }
    // A refusal comes apart from the answer's text, never as deltas: it is the answer.
    if (terminal.type === "done" && this.refused && terminal.finalText) {
      this.send({ sessionUpdate: "agent_message_chunk", content: textBlock(terminal.finalText) });
      await this.outbox;
    }
    return { stopReason: end.stopReason };
  }

  /** `session/cancel`: the turn stops; the prompt answers `cancelled`. */
  cancel(): void {
    if (!this.prompting) return;
    this.cancelled = true;
    this.session.interrupt();
  }

  setMode(id: string): void {
    const mode = modeOf(id);
    if (!mode)
      throw RequestError.invalidParams(
        { modeId: id },
        `nex has no mode "${id}"; choose one of ${this.modes()
          .availableModes.map((m) => m.id)
          .join(", ")}.`,
      );
    this.session.setPermissionMode(mode);
  }

  /** `session/load`: the conversation as the model sees it now, as updates, then the checklist. */
  async replay(opening: readonly AgentEvent[]): Promise<void> {
    for (const update of replayUpdates(this.session.history(), this.session.info.workspace))
      this.send(update);
    for (const event of opening) {
      if (event.type === "todo_updated") this.onEvent(event);
      if (event.type === "context_fitted") this.say(event.line);
    }
    await this.outbox;
  }

  async close(): Promise<void> {
    this.unsubscribe();
    await this.session.close();
  }

  private onEvent(event: AgentEvent): void {
    switch (event.type) {
      case "text_delta":
        this.send({ sessionUpdate: "agent_message_chunk", content: textBlock(event.text) });
        return;
      case "reasoning_delta":
        this.send({ sessionUpdate: "agent_thought_chunk", content: textBlock(event.text) });
        return;
      case "request_finished":
        if (event.purpose !== "compaction") this.lastStop = event.stopReason;
        return;
      case "message_added":
        if (event.message.type === "assistant")
          for (const call of event.message.toolCalls)
            this.calls.set(call.id, {
              name: call.name,
              args: parseArguments(call.argumentsText),
              announced: false,
            });
        return;
      case "permission_requested":
        void this.askPermission(event.callId, event.name, event.summary);
        return;
      case "tool_call_started":
        this.started(event.callId, event.name, event.args);
        return;
      case "tool_call_refused": {
        const content = [textContent(`Not run: ${event.reason}`)];
        const state = this.calls.get(event.callId);
        if (state) state.settled = true;
        if (state?.announced)
          this.send({
            sessionUpdate: "tool_call_update",
            toolCallId: event.callId,
            status: "failed",
            content,
          });
        else this.announce(event.callId, event.name, state?.args ?? {}, "failed", content);
        return;
      }
      case "tool_result":
        void this.finished(event);
        return;
      case "todo_updated":
        this.send({
          sessionUpdate: "plan",
          entries: event.items.map((item) => ({
            content: item.content,
            status: item.status,
            priority: "medium",
          })),
        });
        return;
      case "notice":
        if (event.message.startsWith(REFUSAL_NOTICE)) this.refused = true;
        this.notice("info", event.message);
        return;
      case "request_failed":
        if (event.retryInMs !== null)
          this.notice(
            "warning",
            `${event.message} (retrying in ${Math.ceil(event.retryInMs / 1000)} s)`,
          );
        return;
      default:
        return;
    }
  }

  /** The call appears in the editor, with the change it proposes when it is a write or an edit. */
  private announce(
    callId: string,
    name: string,
    args: Record<string, unknown>,
    status: "pending" | "in_progress" | "failed",
    content: ToolCallContent[] = [],
  ): void {
    const state = this.calls.get(callId) ?? { name, args, announced: false };
    state.announced = true;
    this.calls.set(callId, state);
    this.send({
      sessionUpdate: "tool_call",
      toolCallId: callId,
      title: titleOf(name, args),
      kind: kindOf(name),
      status,
      locations: locationsOf(name, args, this.session.info.workspace),
      rawInput: args,
      ...(content.length > 0 ? { content } : {}),
    });
  }

  private started(callId: string, name: string, args: Record<string, unknown>): void {
    const state = this.calls.get(callId);
    this.captureBefore(callId, name, args);
    if (state?.announced)
      this.send({ sessionUpdate: "tool_call_update", toolCallId: callId, status: "in_progress" });
    else this.announce(callId, name, args, "in_progress");
  }

  /** Reads the file a write or edit targets before it runs, so the result can show old and new. */
  private captureBefore(callId: string, name: string, args: Record<string, unknown>): void {
    const state = this.calls.get(callId) ?? { name, args, announced: false };
    this.calls.set(callId, state);
    if (state.before || (name !== "write_file" && name !== "edit_file")) return;
    if (typeof args.path !== "string") return;
    // Read now, before the tool runs: an asynchronous read could see the file already changed.
    state.before = Promise.resolve(workspaceTextNow(this.session.info.workspace, args.path));
  }

  private async finished(event: Extract<AgentEvent, { type: "tool_result" }>): Promise<void> {
    const state = this.calls.get(event.callId);
    // Held in the outbox's order: the diff needs a read, the next events must not overtake it.
    const ready = changeMade(event, state?.before, this.view());
    this.outbox = this.outbox.then(async () => {
      const diff = await ready;
      const content: ToolCallContent[] = diff ? [diff] : [textContent(shown(event.content))];
      if (!state?.announced) await this.announceNow(event.callId, event.name, state?.args ?? {});
      // Where the change starts, so an editor that follows the agent opens the file there.
      const line =
        diff?.type === "diff" ? firstChangedLine(diff.oldText ?? "", diff.newText) : null;
      await this.deliver({
        sessionUpdate: "tool_call_update",
        toolCallId: event.callId,
        status: event.isError ? "failed" : "completed",
        content,
        ...(diff?.type === "diff" && line !== null
          ? { locations: [{ path: diff.path, line }] }
          : {}),
      });
    });
    this.calls.delete(event.callId);
  }

  private announceNow(callId: string, name: string, args: Record<string, unknown>): Promise<void> {
    return this.deliver({
      sessionUpdate: "tool_call",
      toolCallId: callId,
      title: titleOf(name, args),
      kind: kindOf(name),
      status: "in_progress",
      locations: locationsOf(name, args, this.session.info.workspace),
      rawInput: args,
    });
  }

  /** Asks the editor; a question nobody can answer is a no, never a hang or a yes. */
  private async askPermission(callId: string, name: string, summary: string): Promise<void> {
    const state = this.calls.get(callId);
    const args = state?.args ?? {};
    const key = rejectionKey(name, args);
    if (this.rejected.has(key)) {
      this.session.answerPermission(callId, {
        type: "deny",
        reason: "the user rejected calls like it for this session",
      });
      return;
    }
    this.captureBefore(callId, name, args);
    const proposal = await changeProposed(name, args, state?.before, this.view());
    // A cancel while the change was being read has refused the call already.
    if (state?.settled || this.cancelled) return;
    if (!state?.announced) this.announce(callId, name, args, "pending", proposal);
    await this.outbox;
    let answer: ReturnType<typeof answerOf>;
    try {
      const response = await this.options.client.request("session/request_permission", {
        sessionId: this.sessionId,
        toolCall: {
          toolCallId: callId,
          title: summary,
          kind: kindOf(name),
          status: "pending",
          locations: locationsOf(name, args, this.session.info.workspace),
          ...(proposal.length > 0 ? { content: proposal } : {}),
        },
        options: PERMISSION_OPTIONS,
      });
      answer = answerOf(response.outcome);
    } catch (error) {
      this.options.log(`permission request failed: ${(error as Error).message}`);
      answer = {
        answer: {
          type: "deny",
          reason: `the editor did not answer the permission request (${(error as Error).message})`,
        },
        rejectAlways: false,
      };
    }
    if (answer.rejectAlways) this.rejected.add(key);
    // A cancel has answered it already (no); a late answer must not wait for a call of a later prompt.
    if (this.cancelled) return;
    this.session.answerPermission(callId, answer.answer);
  }

  private view(): ChangeView {
    return { workspace: this.session.info.workspace, redact: (text) => this.session.redact(text) };
  }

  /** nex's own sentence for the user (a cut answer, a resume that dropped messages). */
  private say(text: string): void {
    if (this.options.notices) this.notice("warning", text);
    else
      this.send({ sessionUpdate: "agent_message_chunk", content: textBlock(`\n\n[nex] ${text}`) });
  }

  private notice(severity: "info" | "warning", text: string): void {
    if (!this.options.notices) {
      this.options.log(text);
      return;
    }
    this.send({ sessionUpdate: "notice", severity, title: text });
  }

  private send(update: SessionUpdate): void {
    this.outbox = this.outbox.then(() => this.deliver(update));
  }

  private async deliver(update: SessionUpdate): Promise<void> {
    try {
      await this.options.client.notify("session/update", { sessionId: this.sessionId, update });
    } catch (error) {
      this.options.log(`session/update not delivered: ${(error as Error).message}`);
    }
  }
}
