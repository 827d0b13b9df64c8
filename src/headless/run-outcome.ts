import { type AgentEvent, plainText, type TerminalEvent } from "../protocol/index.ts";
import type { RunChanges } from "../runtime/session/index.ts";

/** What a headless run did to the workspace: the files that differ after it, and the attempts refused. */
export interface RunOutcome {
  /** How many files differ in bytes or mode from before the run (not how many calls ran). */
  changes: number;
  /** Those files, sorted. */
  changedFiles: string[];
  /** Commands whose changes no snapshot measured: they may have changed files not counted above. */
  unmeasured: string[];
  /** Actions refused before they ran: one line each, what the action was. */
  refused: string[];
  /** How many of the refused actions only needed the user's approval (not refused by a rule). */
  neededApproval: number;
  /**
   * The session's own model turns (requests answered), as `--max-turns` counts them; sub-agents' and
   * summaries' requests are `otherRequests`. Tokens are everyone's: they are what the run cost.
   */
  turns: number;
  otherRequests: number;
  inputTokens: number;
  outputTokens: number;
}

/** Collects a run's outcome as its events go by. */
export function createOutcomeTracker(): {
  see(event: AgentEvent): void;
  /** What the checkpoints say differs after the run; without them, the files the file tools wrote. */
  measured(changes: RunChanges | null): void;
  outcome(): RunOutcome;
} {
  const summaries = new Map<string, string>();
  const refused: string[] = [];
  let neededApproval = 0;
  const written = new Set<string>();
  const commands: string[] = [];
  let measured: RunChanges | null = null;
  const usage = { turns: 0, otherRequests: 0, inputTokens: 0, outputTokens: 0 };
  return {
    see(event) {
      if (event.type === "request_finished" && event.purpose !== "compaction") {
        if (event.agent === undefined && event.purpose === undefined) usage.turns++;
        else usage.otherRequests++;
        usage.inputTokens += event.usage?.inputTokens ?? 0;
        usage.outputTokens += event.usage?.outputTokens ?? 0;
      } else if (event.type === "permission_requested") summaries.set(event.callId, event.summary);
      else if (event.type === "tool_call_refused" && event.cause === "denied") {
        const summary = summaries.get(event.callId);
        if (summary !== undefined) neededApproval++;
        refused.push(oneLine(summary ?? `${event.name}: ${event.reason}`));
      } else if (event.type === "tool_result" && event.details) {
        const { details } = event;
        if (details.type === "write" || details.type === "edit") written.add(details.path);
        else if (details.type === "bash") commands.push(details.command);
      }
    },
    measured(changes) {
      measured = changes;
    },
    outcome() {
      const files = measured ? measured.paths : [...written].sort();
      return {
        changes: files.length,
        changedFiles: [...files],
        unmeasured: measured ? [...measured.unmeasured] : [...commands],
        refused: [...refused],
        neededApproval,
        ...usage,
      };
    },
  };
}

/** True when the model tried to change something and none of it happened. */
export function madeNoChange(outcome: RunOutcome): boolean {
  return outcome.refused.length > 0 && outcome.changes === 0 && outcome.unmeasured.length === 0;
}

const LISTED = 3;

/**
 * The last line of a run some of whose actions were refused: what was refused and what to do; null
 * when nothing was. The session's id names it to continue in the chat; its mode says which flag helps.
 */
export function refusalLine(
  outcome: RunOutcome,
  session: { sessionId: string; permissionMode: string },
): string | null {
  const { refused, neededApproval } = outcome;
  if (refused.length === 0) return null;
  const shown = refused.slice(0, LISTED).join("; ");
  const more = refused.length > LISTED ? `; and ${refused.length - LISTED} more` : "";
  const actions = refused.length === 1 ? "1 action" : `${refused.length} actions`;
  const what =
    neededApproval === refused.length
      ? `${actions} needed approval, which headless mode refuses without --yes`
      : `${actions} ${refused.length === 1 ? "was" : "were"} refused`;
  const flags =
    session.permissionMode === "auto_edit"
      ? "--yes"
      : "--yes (or --mode auto_edit for file edits only)";
  const next =
    neededApproval > 0
      ? ` Rerun with ${flags}, or approve them in the chat: nex resume ${session.sessionId}.`
      : "";
  const head = madeNoChange(outcome)
    ? "nex: no changes were made (0 files changed): "
    : "nex: not everything was done: ";
  return `${head}${what} (${shown}${more}).${next}`;
}

function oneLine(text: string): string {
  const line = plainText(text).split("\n", 1)[0] ?? "";
  return line.length > 100 ? `${line.slice(0, 97)}...` : line;
}

/**
 * The last line of a text run, for scripts: `nex: outcome {...}` with the result word (done,
 * nothing_changed, max_turns, interrupted, failed, or the caller's: max_time, schema_failed), the exit
 * code, files changed, refusals, turns and tokens. One JSON object after a fixed prefix.
 */
export function outcomeLine(
  terminal: TerminalEvent,
  outcome: RunOutcome,
  run: { exitCode: number; sessionId: string; word?: string | undefined },
): string {
  const result =
    run.word ??
    (terminal.type === "done"
      ? madeNoChange(outcome)
        ? "nothing_changed"
        : "done"
      : terminal.type === "aborted"
        ? "interrupted"
        : terminal.code === "turn_limit"
          ? "max_turns"
          : "failed");
  return `nex: outcome ${JSON.stringify({
    result,
    exit_code: run.exitCode,
    files_changed: outcome.changes,
    changed_files: outcome.changedFiles,
    ...(outcome.unmeasured.length > 0 ? { unmeasured_commands: outcome.unmeasured.length } : {}),
    refused: outcome.refused.length,
    turns: outcome.turns,
    ...(outcome.otherRequests > 0 ? { other_requests: outcome.otherRequests } : {}),
    input_tokens: outcome.inputTokens,
    output_tokens: outcome.outputTokens,
    session_id: run.sessionId,
  })}`;
}
