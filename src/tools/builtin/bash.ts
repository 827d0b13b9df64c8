import * as v from "valibot";
import type { ToolOutcome } from "../../protocol/index.ts";
import { formatBytes } from "../../protocol/index.ts";
import { defineTool, failure, NON_BLANK, type Tool, type ToolContext } from "../tool.ts";
import { checkpoints, processes, storedResults } from "./machinery.ts";

const parameters = v.strictObject({
  command: v.pipe(
    v.string(),
    v.minLength(1),
    v.regex(NON_BLANK),
    v.description("The bash command to run in the workspace root."),
  ),
  timeout_seconds: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.description(
        "Stop the command after this many seconds (default and maximum are set by nex).",
      ),
    ),
  ),
  background: v.optional(
    v.pipe(
      v.boolean(),
      v.description("Start it as a background job (a server, a watcher): returns at once."),
    ),
  ),
});

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** Saves the undo checkpoint before the command; the refusal when it cannot be (the command does not run). */
async function checkpointBefore(ctx: ToolContext, command: string): Promise<ToolOutcome | null> {
  try {
    await ctx.checkpoints.beforeExec(ctx.turn, command);
    return null;
  } catch (error) {
    if (error instanceof (await checkpoints()).SnapshotRequired)
      return failure(
        "failed",
        `The command was not run: ${error.message}, and it was approved only by --yes / a rule. ` +
          "Tell the user; they can run it themselves or approve it in ask mode.",
      );
    return failure(
      "failed",
      `Could not save the undo checkpoint (${(error as Error).message}); the command was not run. ` +
        "Tell the user: the checkpoint directory may be full or unwritable.",
    );
  }
}

/** The sandbox never reported the command's start: interrupted then, or the sandbox is broken. */
function notStarted(result: { aborted: boolean; output: string }, ctx: ToolContext): ToolOutcome {
  // Stopped before the sandbox reported the command's start: an interrupt, not a broken sandbox.
  if (result.aborted)
    return {
      isError: true,
      code: "aborted",
      content: "Interrupted as the command was starting: it was stopped, possibly before it ran.",
    };
  const why = result.output.trim().split("\n").slice(-3).join(" ").slice(0, 400);
  ctx.sandbox.markBroken(`bubblewrap failed to start (${why})`);
  return failure(
    "failed",
    `Not run: the sandbox could not start (${why}), so the command was not run. ` +
      "Tell the user: nex will ask before running commands unconfined; see `nex doctor`.",
  );
}

/** The `bash` tool: one command in its own process group, with a timeout, cancellation and capped output. */
export function bashTool(): Tool {
  return defineTool({
    name: "bash",
    description:
      "Run a bash command (`bash -c`) in the workspace root and return its exit code and output (stdout and stderr together). " +
      "Use it for builds, tests, git and other programs; use read_file, write_file and edit_file for files. " +
      "Long output is stored whole and can be paged with read_file. Commands are stopped at a timeout; background processes (`&`) are stopped when the command ends: " +
      "start servers and watchers with `background: true` instead. There is no interactive input (stdin is closed).",
    parameters,
    mutates: "exec",
    words: {
      command: { empty: "`command` must not be {what}. Re-emit the call with the command to run." },
    },
    summarize: async (args) => `bash: ${args.command}`,
    command: (args) => args.command,
    async execute(args, ctx): Promise<ToolOutcome> {
      const timeoutMs = Math.min(
        args.timeout_seconds !== undefined ? args.timeout_seconds * 1000 : ctx.limits.bashTimeoutMs,
        ctx.limits.maxBashTimeoutMs,
      );
      const notSaved = await checkpointBefore(ctx, args.command);
      if (notSaved) return notSaved;
      // Interrupted while the checkpoint was taken: the command never starts.
      if (ctx.signal.aborted)
        return {
          isError: true,
          code: "aborted",
          content: "Interrupted before the command started: it was not run.",
        };
      const env = { PAGER: "cat", GIT_PAGER: "cat", ...ctx.limits.env };
      // The machinery loads at the first command: a run that runs none never loads it.
      const [{ describeLeftovers, liveOutput, runBash }, { storedNote }] = await Promise.all([
        processes(),
        storedResults(),
      ]);
      const launch = await ctx.sandbox.launch(args.command, ctx.workspace.root);
      if (args.background)
        return (await import("./start-job.ts")).startJob(args.command, launch, env, ctx);
      // Room for the status lines and the stored-result note, so the dispatcher never cuts again.
      const cap = Math.max(1024, ctx.limits.outputCap - 1600);
      const spool = ctx.results.spool("bash", cap);
      // What the command prints, shown live in a UI as it comes (throttled, its end only).
      const live = ctx.output ? liveOutput(ctx.output) : null;
      const result = await runBash({
        ...(live ? { onOutput: (chunk: Buffer) => live.see(chunk) } : {}),
        launch,
        spool,
        command: args.command,
        cwd: ctx.workspace.root,
        env,
        timeoutMs,
        killGraceMs: ctx.limits.killGraceMs,
        outputCap: cap,
        signal: ctx.signal,
      });
      live?.stop();
      const stored = spool.finish();
      const details = {
        type: "bash" as const,
        command: args.command,
        exitCode: result.exitCode,
        signal: result.signal,
        timedOut: result.timedOut,
        tail: result.tail,
      };
      launch.release();
      if (!result.started) return notStarted(result, ctx);
      const notes = [...launch.notes(result.output), ...launch.after(env)];
      const body =
        (stored ? `${storedNote(stored, stored.lines ?? null)}\n` : "") +
        (result.totalBytes === 0 ? "(no output)" : result.output) +
        (notes.length > 0 ? `\n${notes.join("\n")}` : "");
      const size = result.totalBytes > 0 ? ` Output (${formatBytes(result.totalBytes)}):` : "";
      // In bubblewrap's own PID namespace nothing outlives the command: output held open a moment
      // longer is a process that is being ended with it, not one left behind.
      const left = describeLeftovers(result.leftovers, result.leftBehind && !launch.statusFd);
      if (result.aborted) {
        return {
          isError: true,
          code: "aborted",
          content: `Interrupted: the command and its child processes were stopped.${size}\n${body}${left}`,
          details,
        };
      }
      if (result.timedOut) {
        return {
          isError: true,
          code: "timeout",
          content:
            `Timed out after ${seconds(timeoutMs)}: the command and its child processes were stopped.${size}\n${body}${left}\n` +
            "If it needs longer, pass a larger timeout_seconds, or run a narrower command.",
          details,
        };
      }
      if (result.exitCode === 0) {
        return { isError: false, content: `Exit code 0.${size}\n${body}${left}`, details };
      }
      const status =
        result.exitCode !== null
          ? `Exit code ${result.exitCode}.`
          : `Killed by signal ${result.signal ?? "unknown"}.`;
      return {
        isError: true,
        code: "failed",
        content: `${status}${size}\n${body}${left}`,
        details,
      };
    },
  });
}
