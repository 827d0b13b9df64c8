// The calls of a model's turn as nex runs them: a reply that is only JSON calls becomes those calls,
// Claude Code's tool names become nex's, and arguments a small model sent empty or copied from the
// schema are dropped, all before any guard (validation, repeat guard, permissions) sees the call.
import type { AgentEvent, AssembledToolCall, AssembledTurn, ToolSpec } from "../protocol/index.ts";
import { withoutEmptyOptionals, withValuesRead } from "./empty-arguments.ts";
import { asToolCalls, jsonReplyCalls } from "./text-tool-call.ts";
import { type AliasedCall, aliasTarget, resolveAlias } from "./tool-aliases.ts";
import { canonicalToolName } from "./tool-names.ts";

/**
 * The turn's calls under nex's names: a reply that is only calls written as JSON runs as those calls,
 * and each alias (Claude Code's names) is renamed to nex's tool before any guard sees it.
 */
export async function* namedCalls(
  reply: AssembledTurn,
  context: {
    turn: number;
    specs: ToolSpec[];
    explained: Set<string>;
    aliases: Map<string, AliasedCall>;
  },
): AsyncGenerator<AgentEvent, AssembledTurn> {
  const { turn, specs, explained, aliases } = context;
  const known = specs.map((spec) => spec.name);
  // Calls written in a reply that did not end whole (cut at its limit, dropped, a loop nex stopped)
  // never run: the same rule as a native call's verdict.
  const whole = reply.terminated && reply.stopReason !== "length" && reply.runaway === undefined;
  const written = reply.toolCalls.length === 0 && whole ? jsonReplyCalls(reply.text, known) : null;
  if (written) {
    yield {
      type: "notice",
      message: writtenCallsNotice(written.map((call) => call.name)),
    };
  }
  return {
    ...reply,
    ...(written ? { text: "" } : {}),
    toolCalls: (written ? asToolCalls(written, turn) : reply.toolCalls).map((call) =>
      withoutEmptyArguments(aliasedCall(call, known, explained, aliases), specs),
    ),
  };
}

/** A call under nex's name, its alias (Claude Code's names) resolved and remembered for its result. */
function aliasedCall(
  call: AssembledToolCall,
  known: string[],
  explained: Set<string>,
  aliases: Map<string, AliasedCall>,
): AssembledToolCall {
  const name = canonicalToolName(call.name, known);
  if (call.verdict.type !== "whole") return { ...call, name: aliasTarget(name, known) };
  const alias = resolveAlias(name, call.verdict.args, known);
  if (!alias) return { ...call, name };
  // Said once a run per alias: the model learns nex's names without a note on every result.
  if (alias.type === "call" && explained.has(alias.from)) alias.note = "";
  explained.add(alias.from);
  aliases.set(call.id, alias);
  if (alias.type === "refused") return { ...call, name: alias.name };
  return {
    ...call,
    name: alias.name,
    argumentsText: JSON.stringify(alias.args),
    verdict: { ...call.verdict, args: alias.args },
  };
}

/**
 * The call without the optional arguments it sent empty ("" or null): they mean "not given"; and with
 * the numbers and truth values it wrote as strings read as what they spell.
 */
function withoutEmptyArguments(call: AssembledToolCall, specs: ToolSpec[]): AssembledToolCall {
  if (call.verdict.type !== "whole") return call;
  const spec = specs.find((candidate) => candidate.name === call.name);
  const kept =
    withoutEmptyOptionals(spec?.parameters, call.verdict.args)?.args ?? call.verdict.args;
  const args = withValuesRead(spec?.parameters, kept) ?? kept;
  if (args === call.verdict.args) return call;
  return { ...call, argumentsText: JSON.stringify(args), verdict: { ...call.verdict, args } };
}

/** What the user is told of calls the model wrote as JSON text, one or several. */
export function writtenCallsNotice(names: readonly string[]): string {
  if (names.length === 1)
    return `The model wrote its ${names[0]} call as JSON text (the whole reply); nex runs it as the call it is.`;
  const tools = [...new Set(names)].join(", ");
  return `The model wrote ${names.length} calls (${tools}) as JSON text (the whole reply); nex runs them as the calls they are.`;
}
