// A model whose server does not parse tool calls (vLLM without --enable-auto-tool-choice, llama.cpp
// without --jinja, a chat template that lacks tools) writes its calls into the answer as text. Ending
// such a run as "done" would report a task as finished while nothing of it ran, so the loop asks.

/** The shapes open models use to write a call as text, when the server leaves it unparsed. */
const MARKERS = [
  /<tool_call>/i, // Hermes, Qwen 2.5/3
  /<function=[\w.-]+>/i, // Qwen3-Coder XML
  /<\|tool_call(?:s)?_(?:begin|section_begin)\|>/i, // DeepSeek, Kimi
  /\[TOOL_CALLS\]/, // Mistral
  /<\|python_tag\|>/, // Llama 3.1
  /\[TOOL_REQUEST\]/, // LM Studio's default format, for models without native tool support
];

/**
 * The name of the tool an answer seems to call as text, or null. A marker counts only with one of the
 * session's tool names near it; a bare JSON object counts only when it is the whole answer (fenced or
 * not) and names a tool, so prose that merely mentions a tool is not caught.
 */
export function textToolCall(text: string, toolNames: readonly string[]): string | null {
  const named = (fragment: string): string | null =>
    toolNames.find((name) => new RegExp(`["'=>\\s]${name}["'<>\\s]`).test(` ${fragment} `)) ?? null;
  for (const marker of MARKERS) {
    const match = marker.exec(text);
    if (!match) continue;
    const name = named(text.slice(match.index, match.index + 400));
    if (name) return name;
  }
  const whole = text
    .trim()
    .replace(/^```(?:json)?\s*/i, "")
    .replace(/\s*```$/, "");
  if (!whole.startsWith("{") || !whole.endsWith("}")) return null;
  try {
    const value = JSON.parse(whole) as {
      name?: unknown;
      arguments?: unknown;
      parameters?: unknown;
    };
    const hasArgs = value.arguments !== undefined || value.parameters !== undefined;
    return typeof value.name === "string" && hasArgs && toolNames.includes(value.name)
      ? value.name
      : null;
  } catch {
    return null;
  }
}

/** What the user is told when a run's final answer is a call written as text. */
export function textToolCallMessage(tool: string): string {
  return (
    `The model wrote a ${tool} call as plain text instead of calling the tool, so nex ran nothing and the task is not done. ` +
    "The server is not parsing tool calls: start vLLM with --enable-auto-tool-choice and the model's --tool-call-parser, " +
    "llama.cpp with --jinja, or use a model and chat template that support tools; `nex doctor` checks this."
  );
}
