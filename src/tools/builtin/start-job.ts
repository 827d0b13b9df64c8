import type { ToolOutcome } from "../../protocol/index.ts";
import type { Launch } from "../sandbox/index.ts";
import { jobLine } from "../shell/index.ts";
import { failure, type ToolContext } from "../tool.ts";

/** How long a new job is watched before the call returns: a typo or a port in use shows at once. */
const FIRST_LOOK_MS = 1500;

/** `bash` with `background: true`: starts a job and says how it stands after its first moment. */
export async function startJob(
  command: string,
  launch: Launch,
  env: Record<string, string | undefined>,
  ctx: ToolContext,
): Promise<ToolOutcome> {
  const spool = ctx.results.spool("job", 0);
  const started = await ctx.jobs.start(command, launch, ctx.workspace.root, env, {
    write: (chunk) => spool.write(chunk),
    name: () => spool.name(),
    finish: () => {
      spool.finish();
    },
  });
  if (typeof started === "string") {
    launch.release();
    return failure("failed", started);
  }
  const id = started.id;
  for (let waited = 0; waited < FIRST_LOOK_MS; waited += 50) {
    if (ctx.jobs.info(id)?.state !== "running" || ctx.signal.aborted) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const info = ctx.jobs.info(id) ?? started;
  const tail = ctx.jobs.tail(id, 20, Math.max(512, ctx.limits.outputCap - 1024)) ?? "";
  const shown = tail === "" ? "(no output yet)" : tail;
  if (info.state !== "running") {
    // Said here once; the turn boundary's "a job ended" would say it again.
    ctx.jobs.markReported(id);
    const ok = info.exitCode === 0;
    return {
      isError: !ok,
      ...(ok ? {} : { code: "failed" as const }),
      content: `The background job ended at once: ${jobLine(info)}\nLast output:\n${shown}`,
    };
  }
  return {
    isError: false,
    content:
      `Started ${jobLine(info)}\nOutput so far:\n${shown}\n` +
      `It runs until it ends or is stopped; you will be told when it ends. ` +
      `jobs {"action":"output","id":${id}} shows its latest output, {"action":"stop","id":${id}} stops it.`,
  };
}
