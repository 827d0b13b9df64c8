// Which approvals the chat offers to save for the project ("p"): commands and MCP tools, for which
// the runtime writes a precise rule; a hazard never (the prompt marks it, and the runtime refuses it).

/** Whether a request of tool `name` may be answered "always in this project". */
export function savableForProject(name: string): boolean {
  return name === "bash" || name.startsWith("mcp__");
}
