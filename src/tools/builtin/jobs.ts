import * as v from "valibot";
import type { ToolOutcome } from "../../protocol/index.ts";
import { defineTool, failure, type Tool } from "../tool.ts";
import { processes } from "./machinery.ts";

const parameters = v.strictObject({
  action: v.picklist(["list", "output", "stop"]),
  id: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  lines: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(2000))),
});

/** The `jobs` tool: lists background jobs, shows one's latest output, stops one. */
export function jobsTool(): Tool {
  return defineTool({
    name: "jobs",
    brief: "list, tail, stop background jobs",
    description:
      "Background jobs started with bash `background: true`: `list` them, show a job's latest `output` (`lines`, default 50; the whole log can be paged with read_file), or `stop` one.",
    parameters,
    mutates: false,
    // Needed only once a job runs: on small windows the model loads it when it starts one.
    deferred: true,
    words: {},
    summarize: async (args) => `jobs ${args.action}${args.id ? ` ${args.id}` : ""}`,
    async execute(args, ctx): Promise<ToolOutcome> {
      const { jobLine } = await processes();
      if (args.action === "list") {
        const all = ctx.jobs.list();
        return {
          isError: false,
          content: all.length === 0 ? "No background jobs." : all.map(jobLine).join("\n"),
        };
      }
      if (args.id === undefined)
        return failure(
          "invalid_arguments",
          `\`${args.action}\` needs the job's \`id\`; jobs {"action":"list"} shows them.`,
        );
      const info = ctx.jobs.info(args.id);
      if (!info)
        return failure(
          "not_found",
          `There is no job ${args.id}; jobs {"action":"list"} shows them.`,
        );
      if (args.action === "stop") {
        if (info.state !== "running")
          return { isError: false, content: `Job ${args.id} had already ended: ${jobLine(info)}` };
        const stopped = await ctx.jobs.stop(args.id);
        return { isError: false, content: `Stopped ${jobLine(stopped ?? info)}` };
      }
      const tail =
        ctx.jobs.tail(args.id, args.lines ?? 50, Math.max(512, ctx.limits.outputCap - 1024)) ?? "";
      return {
        isError: false,
        content: `${jobLine(info)}\n${tail === "" ? "(no output yet)" : tail}`,
      };
    },
  });
}
