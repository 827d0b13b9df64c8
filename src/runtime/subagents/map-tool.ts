import * as v from "valibot";
import type { ToolOutcome } from "../../protocol/index.ts";
import { defineTool, type Tool } from "../../tools/index.ts";
import { modeTools, type Subagents } from "./subagent-context.ts";

/** Most inputs of one map: more is refused with a way forward, never queued by the thousand. */
export const MAX_MAP_INPUTS = 200;

const SYSTEM =
  "You are a sub-agent of nex doing one task on one input, with read-only tools. Answer with a short, complete result for this input only.";

// Candidate for on-demand loading (the window engineer's work): rarely used, its schema rides in every request.
/** `map`: one fresh read-only child per input; results gathered in a stored file and summarised back. */
export function mapTool(subagents: Subagents): Tool {
  return defineTool({
    name: "map",
    deferred: true,
    brief: "one task per input",
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
      const { reportPool, runItem, runPool } = await import("./work-pool.ts");
      const mapTag = subagents.tag("map", ctx);
      const timeoutSeconds = args.timeout_seconds ?? 180;
      const pool = await runPool(args.inputs.length, "input", ctx.signal, (index) =>
        runItem(
          parent,
          mapTag,
          `map: input ${index + 1} of ${args.inputs.length}`,
          timeoutSeconds,
          {
            tag: subagents.tag("map-item", ctx),
            turn: ctx.turn,
            system: SYSTEM,
            prompt: `Task: ${args.task}\n\nInput: ${args.inputs[index]}`,
            allowed: modeTools("explore", null),
            maxTurns: args.max_turns ?? 8,
          },
          ctx.signal,
        ),
      );
      return reportPool(
        parent,
        mapTag,
        ctx,
        { tool: "map", task: args.task, headings: args.inputs, unit: "input" },
        pool,
      );
    },
  });
}
