// The bounds `map` and `chunk_map` share: a few items at a time, no new item once the endpoint has
// failed several in a row (no request storm), each item's result or failure kept in order, all of
// them stored whole in one result file, and the set returned as is or merged when it is too large.
import type { AgentTag, TerminalEvent, ToolOutcome } from "../../protocol/index.ts";
import type { ToolContext } from "../../tools/index.ts";
import { type ChildParent, type ChildSpec, runChild } from "./child-agent.ts";

/** Most items of one job: more is refused with a way forward, never queued by the thousand. */
export const MAX_ITEMS = 200;
const CONCURRENCY = 3;
/** Failures in a row, not of a child's own making, after which no further item starts. */
const ENDPOINT_FAILURES_AT = 3;
/** How a child can fail on its own (a loop, a cut answer): the endpoint is not to blame. */
const CHILD_OWN_FAILURES = new Set<string>([
  "turn_limit",
  "repeated_failure",
  "invalid_response",
  "context_length",
]);

/** How one item ended: its child's terminal event and last words, and whether its clock ran out. */
export interface ItemRun {
  terminal: TerminalEvent;
  text: string;
  timedOut: boolean;
  timeoutSeconds: number;
}

/** One item's child: its progress shown under the job's tag, run within its own clock. */
export async function runItem(
  parent: ChildParent,
  job: AgentTag,
  notice: string,
  timeoutSeconds: number,
  spec: Omit<ChildSpec, "signal">,
  signal: AbortSignal,
): Promise<ItemRun> {
  parent.emit({ type: "notice", message: notice, agent: job });
  const timeout = AbortSignal.timeout(timeoutSeconds * 1000);
  const result = await runChild(parent, {
    ...spec,
    tag: { ...spec.tag, parentCallId: job.parentCallId },
    signal: AbortSignal.any([signal, timeout]),
  });
  return { ...result, timedOut: timeout.aborted, timeoutSeconds };
}

export interface PoolResult {
  /** Each item's result, "FAILED: …", or "" for one never run. */
  results: string[];
  failed: number;
  /** Why the pool stopped starting items, or null. */
  halted: string | null;
}

/** Runs `run` over `count` items a few at a time, in order of index; stops early as said above. */
export async function runPool(
  count: number,
  unit: string,
  signal: AbortSignal,
  run: (index: number) => Promise<ItemRun>,
): Promise<PoolResult> {
  const results: string[] = new Array(count).fill("");
  let failed = 0;
  let next = 0;
  let endpointFailures = 0;
  let halted: string | null = null;
  const worker = async () => {
    for (;;) {
      if (halted !== null) return;
      const index = next++;
      if (index >= count || signal.aborted) return;
      const item = await run(index);
      const end = item.terminal;
      if (end.type === "error" && !CHILD_OWN_FAILURES.has(end.code)) {
        endpointFailures++;
        if (endpointFailures >= ENDPOINT_FAILURES_AT)
          halted ??= `the endpoint failed ${endpointFailures} ${unit}s in a row (last: ${end.message})`;
      } else endpointFailures = 0;
      if (end.type === "done") {
        results[index] = item.text.trim() || "(no answer)";
        continue;
      }
      failed++;
      const why =
        end.type === "error"
          ? end.message
          : item.timedOut && !signal.aborted
            ? `no result within ${item.timeoutSeconds} s`
            : "interrupted";
      results[index] =
        `FAILED: ${why}${item.text.trim() ? `\nLast words: ${item.text.trim()}` : ""}`;
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count) }, worker));
  return { results, failed, halted };
}

/**
 * The pool's results as the model reads them: all stored in one file, returned whole when they fit,
 * else merged by the session's model (the file keeps every word).
 */
export async function reportPool(
  parent: ChildParent,
  tag: AgentTag,
  ctx: ToolContext,
  job: { tool: string; task: string; headings: string[]; unit: string },
  pool: PoolResult,
): Promise<ToolOutcome> {
  const { summarizeText } = await import("./chunked-reading.ts");
  const total = job.headings.length;
  const done = pool.results.filter((text) => text !== "").length;
  const notRun = pool.halted ? `(not run: ${pool.halted})` : "(not run: interrupted)";
  const gathered = job.headings
    .map((heading, i) => `## ${i + 1}. ${heading}\n${pool.results[i] || notRun}`)
    .join("\n\n");
  const stored = ctx.results.save(`Task: ${job.task}\n\n${gathered}\n`, job.tool);
  const head = `${job.tool} went through ${done} of ${total} ${job.unit}(s) (${pool.failed} failed${ctx.signal.aborted ? ", interrupted" : ""}); every result is in ${stored.name} (read it with read_file or grep).`;
  if (ctx.signal.aborted) return { isError: true, code: "aborted", content: head };
  if (pool.halted)
    return {
      isError: true,
      code: "failed",
      content: `${head}\nStopped: ${pool.halted}; the rest was not run. Check the endpoint, then run ${job.tool} again for the rest.`,
    };
  if (Buffer.byteLength(gathered) <= ctx.limits.outputCap * 0.8)
    return { isError: false, content: `${head}\n\n${gathered}` };
  const summary = await summarizeText(
    parent,
    tag,
    ctx,
    gathered,
    `Combine these per-${job.unit} results of the task "${job.task}": keep each ${job.unit}'s key result and every failure.`,
  );
  return summary.ok
    ? { isError: false, content: `${head}\n\nSummary:\n${summary.text}` }
    : {
        isError: false,
        content: `${head}\nThe summary of them failed (${summary.message}); read the file.`,
      };
}
