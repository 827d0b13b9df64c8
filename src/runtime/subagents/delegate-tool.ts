import * as v from "valibot";
import type { ToolOutcome } from "../../protocol/index.ts";
import { defineTool, resultCapForWindow, type Tool, type ToolContext } from "../../tools/index.ts";
import type { ChildResult } from "./child-agent.ts";
import { modeTools, type Subagents } from "./subagent-context.ts";

/** Turns a child gets unless the call asks for fewer or more (at most MAX_CHILD_TURNS). */
export const CHILD_TURNS = 20;
export const MAX_CHILD_TURNS = 50;

const base = {
  task: v.pipe(
    v.string(),
    v.regex(/\S/),
    v.description("Complete task; the sub-agent sees nothing else."),
  ),
  mode: v.optional(
    v.pipe(
      v.picklist(["explore", "work"]),
      v.description("explore (default): read-only; work: may edit, run commands."),
    ),
  ),
  max_turns: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_CHILD_TURNS)),
  ),
};

interface DelegateArgs {
  task: string;
  mode?: "explore" | "work" | undefined;
  max_turns?: number | undefined;
  agent?: string | undefined;
}

const SYSTEM = (mode: string) =>
  `You are a sub-agent of nex, a coding agent, working in ${mode} mode on one task given by the main agent. ` +
  "Work with your tools, then answer with a short, complete report of what you found or did: it is all the main agent will see. " +
  (mode === "explore"
    ? "You cannot change files or run commands."
    : "Change only what the task asks for.");

// Candidate for on-demand loading (the window engineer's work): rarely used, its schema rides in every request.
/** `delegate`: a child agent with its own conversation does a self-contained task and reports back. */
export function delegateTool(subagents: Subagents): Tool {
  const names = subagents.agents.map(
    (agent) => `${agent.name} (${agent.description.slice(0, 80)})`,
  );
  const description =
    "Give a self-contained task to a sub-agent (fresh context); returns its report and changed files." +
    (names.length > 0 ? ` Agents: ${names.join("; ")}.` : "");
  const summarize = async (args: DelegateArgs) =>
    `delegate (${args.agent ?? args.mode ?? "explore"}) ${args.task.slice(0, 80)}`;
  const execute = (args: DelegateArgs, ctx: ToolContext) => runDelegate(subagents, args, ctx);
  const [first, ...rest] = subagents.agents.map((agent) => agent.name);
  // `agent` is offered only when the user defined named subagents, as the list of their names.
  if (first === undefined)
    return defineTool({
      name: "delegate",
      deferred: true,
      brief: "hand a task to a sub-agent",
      description,
      parameters: v.strictObject(base),
      mutates: false,
      summarize,
      execute,
    });
  const parameters = v.strictObject({ ...base, agent: v.optional(v.picklist([first, ...rest])) });
  return defineTool({
    name: "delegate",
    // The user defined named subagents: the model should see them from the start.
    description,
    parameters,
    mutates: false,
    summarize,
    execute,
  });
}

async function runDelegate(
  subagents: Subagents,
  args: DelegateArgs,
  ctx: ToolContext,
): Promise<ToolOutcome> {
  const named = args.agent ? subagents.agents.find((agent) => agent.name === args.agent) : null;
  if (args.agent && !named) {
    const known = subagents.agents.map((agent) => agent.name).join(", ") || "none are defined";
    return {
      isError: true,
      code: "invalid_arguments",
      content: `There is no subagent named ${args.agent} (${known}). Leave out \`agent\` for a general one.`,
    };
  }
  const mode = args.mode ?? (named?.tools?.some(isChanging) ? "work" : "explore");
  const parent = subagents.session();
  const gate = mode === "work" ? subagents.workGate : subagents.exploreGate;
  const tag = subagents.tag(named?.name ?? mode, ctx);
  const system = named?.system ? `${SYSTEM(mode)}\n\n${named.system}` : SYSTEM(mode);
  const modelNote =
    named?.model && named.model !== parent.model()
      ? ` (its file asks for model ${named.model}; it ran on the session's model ${parent.model()})`
      : "";
  let result: ChildResult;
  try {
    const { runChild } = await import("./child-agent.ts");
    const prompt = withParentSummary(await parent.summary(), args.task, parent.window());
    result = await gate(ctx.signal, () =>
      runChild(parent, {
        tag,
        turn: ctx.turn,
        system,
        prompt,
        allowed: modeTools(mode, named?.tools ?? null),
        maxTurns: args.max_turns ?? CHILD_TURNS,
        signal: ctx.signal,
      }),
    );
  } catch {
    return {
      isError: true,
      code: "aborted",
      content: "delegate was interrupted before the sub-agent started.",
    };
  }
  return childOutcome(`Sub-agent ${tag.id} (${tag.kind})${modelNote}`, result);
}

function isChanging(name: string): boolean {
  return ["write_file", "edit_file", "bash", "Write", "Edit", "MultiEdit", "Bash"].includes(name);
}

/** A child's report as the parent model reads it: its answer, or why it stopped, and what it changed. */
export function childOutcome(who: string, result: ChildResult): ToolOutcome {
  const changes =
    result.changed.length > 0
      ? `Files it changed: ${result.changed.join(", ")} (read them before changing them yourself).`
      : "It changed no files.";
  const commands = result.commands > 0 ? ` It ran ${result.commands} command(s).` : "";
  const end = result.terminal;
  if (end.type === "done") {
    return {
      isError: false,
      content: `${result.text.trim()}\n\n[${who} finished in ${end.turns} turn(s). ${changes}${commands}]`,
    };
  }
  const partial = result.text.trim() ? `\nIts last words:\n${result.text.trim()}` : "";
  const why = end.type === "aborted" ? `did not finish (${end.reason})` : `stopped: ${end.message}`;
  return {
    isError: true,
    code: end.type === "aborted" ? "aborted" : "failed",
    content: `${who} ${why.replace(/\.$/, "")}. ${changes}${commands}${partial}`,
  };
}

/** The most of the parent's summary a child starts from: small beside the task, smaller on small windows. */
const SUMMARY_SHARE = 4 * 1024;

/**
 * The task, after what the delegating session has done so far (its running summary, cut to a small
 * share of the window): a child otherwise starts knowing nothing of the work it is part of.
 */
export function withParentSummary(summary: string | null, task: string, window: number): string {
  if (!summary) return task;
  const cap = Math.min(SUMMARY_SHARE, Math.floor(resultCapForWindow(window) / 2));
  const bytes = Buffer.from(summary, "utf8");
  const cut = bytes
    .subarray(0, cap)
    .toString("utf8")
    .replace(/\uFFFD$/, "");
  const kept = bytes.length <= cap ? summary : `${cut}\n[… the rest of the summary is left out]`;
  return `[nex: the session that delegated this task keeps this running summary of its work so far; it is background, the task below is what to do.]\n${kept}\n\nYour task:\n${task}`;
}
