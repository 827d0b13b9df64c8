/**
 * A tool name as sent back in history: a call refused because it arrived without a name keeps a
 * placeholder, since endpoints reject an empty function name (its tool result says what happened).
 */
export function historyName(name: string): string {
  return name === "" ? "unnamed_tool_call" : name;
}
