import * as v from "valibot";
import type { ToolOutcome } from "../../protocol/index.ts";
import { defineTool, type Tool } from "../../tools/index.ts";
import { modeTools, type Subagents } from "./subagent-context.ts";

/** Most inputs of one map: more is refused with a way forward, never queued by the thousand. */
export const MAX_MAP_INPUTS = 200;
const CONCURRENCY = 3;
/** Failures in a row, not of a child's own making, after which no further input starts. */
const ENDPOINT_FAILURES_AT = 3;
/** How a child can fail on its own (a loop, a cut answer): the endpoint is not to blame. */
const CHILD_OWN_FAILURES = new Set<string>([
  "turn_limit",
  "repeated_failure",
  "invalid_response",
  "context_length",
]);

const SYSTEM =
  "You are a sub-agent of nex doing one task on one input, with read-only tools. Answer with a short, complete result for this input only.";

// Candidate for on-demand loading (the window engineer's work): rarely used, its schema rides in every request.
/** `map`: one fresh read-only child per input; results gathered in a stored file and summarised back. */
export function mapTool(subagents: Subagents): Tool {
  return defineTool({
    name: "map",
    deferred: true,
    description: "Do a task once per input (file or item), each in a fresh read-only sub-agent.",
    parameters: v.strictObject({
      inputs: v.pipe(v.array(v.string()), v.minLength(1)),
      task: v.pipe(v.string(), v.regex(/\S/)),
      max_turns: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(20))),
      timeout_seconds: v.optional(v.pipe(v.number(), v.minValue(5), v.maxValue(600))),
    }),
    mutates: false,
    summarize: async (args) => `map ${args.inputs.length} input(s): ${args.task.slice(0, 60)}`,
    async execute(args, ctx): Promise<ToolOutcome> {
      if (args.inputs.length > MAX_MAP_INPUTS) {
        return {
          isError: true,
          code: "too_large",
          content: `map takes at most ${MAX_MAP_INPUTS} inputs; ${args.inputs.length} were given and none was run. Narrow the list (grep, glob) or call map on batches of ${MAX_MAP_INPUTS}.`,
        };
      }
      const parent = subagents.session();
      // The child machinery loads with the first call: most sessions never map.
      const { runChild } = await import("./child-agent.ts");
      const { summarizeText } = await import("./chunked-reading.ts");
      const mapTag = subagents.tag("map", ctx);
      const results: string[] = new Array(args.inputs.length).fill("");
      let failed = 0;
      let next = 0;
      // Items failing on the endpoint in a row: past the bound no more start (no request storm).
      let endpointFailures = 0;
      let halted: string | null = null;
      const worker = async () => {
        for (;;) {
          if (halted !== null) return;
          const index = next++;
          const input = args.inputs[index];
          if (input === undefined || ctx.signal.aborted) return;
          parent.emit({
            type: "notice",
            message: `map: input ${index + 1} of ${args.inputs.length}`,
            agent: mapTag,
          });
          const timeout = AbortSignal.timeout((args.timeout_seconds ?? 180) * 1000);
          const result = await runChild(parent, {
            tag: { ...subagents.tag("map-item", ctx), parentCallId: mapTag.parentCallId },
            turn: ctx.turn,
            system: SYSTEM,
            prompt: `Task: ${args.task}\n\nInput: ${input}`,
            allowed: modeTools("explore", null),
            maxTurns: args.max_turns ?? 8,
            signal: AbortSignal.any([ctx.signal, timeout]),
          });
          const end = result.terminal;
          if (end.type === "error" && !CHILD_OWN_FAILURES.has(end.code)) {
            endpointFailures++;
            if (endpointFailures >= ENDPOINT_FAILURES_AT) {
              halted ??= `the endpoint failed ${endpointFailures} inputs in a row (last: ${end.message})`;
            }
          } else endpointFailures = 0;
          if (end.type === "done") results[index] = result.text.trim() || "(no answer)";
          else {
            failed++;
            const why =
              end.type === "error"
                ? end.message
                : timeout.aborted && !ctx.signal.aborted
                  ? `no result within ${args.timeout_seconds ?? 180} s`
                  : "interrupted";
            results[index] =
              `FAILED: ${why}${result.text.trim() ? `\nLast words: ${result.text.trim()}` : ""}`;
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, args.inputs.length) }, worker));
      const done = results.filter((text) => text !== "").length;
      const notRun = halted ? `(not run: ${halted})` : "(not run: interrupted)";
      const gathered = args.inputs
        .map((input, i) => `## ${i + 1}. ${input}\n${results[i] || notRun}`)
        .join("\n\n");
      const stored = ctx.results.save(`Task: ${args.task}\n\n${gathered}\n`, "map");
      const head = `map went through ${done} of ${args.inputs.length} input(s) (${failed} failed${ctx.signal.aborted ? ", interrupted" : ""}); every result is in ${stored.name} (read it with read_file or grep).`;
      if (ctx.signal.aborted) return { isError: true, code: "aborted", content: head };
      if (halted)
        return {
          isError: true,
          code: "failed",
          content: `${head}\nStopped: ${halted}; the rest was not run. Check the endpoint, then map the remaining inputs.`,
        };
      if (Buffer.byteLength(gathered) <= ctx.limits.outputCap * 0.8)
        return { isError: false, content: `${head}\n\n${gathered}` };
      const summary = await summarizeText(
        parent,
        mapTag,
        ctx,
        gathered,
        `Combine these per-input results of the task "${args.task}": keep each input's key result and every failure.`,
      );
      return summary.ok
        ? { isError: false, content: `${head}\n\nSummary:\n${summary.text}` }
        : {
            isError: false,
            content: `${head}\nThe summary of them failed (${summary.message}); read the file.`,
          };
    },
  });
}
