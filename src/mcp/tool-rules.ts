// A permission rule for MCP tools names a server and a tool as two parts: `mcp__<server>`,
// `mcp__<server>__*`, `mcp__<server>__<tool>` (a `*` matches within its own part only). Matched as a
// plain string prefix, `mcp__docs__*` also allowed every tool of a server named `docs__x`; parsed
// into parts, it names server `docs` and nothing else. Server names that could blur the separator
// (`__` inside, `_` at an end) are refused when the configuration is read (config.ts).

/** A server name nex accepts: no `__`, no `_` at either end, so `mcp__<server>__<tool>` parses back. */
export function separatorProblem(name: string): string | null {
  if (name.includes("__")) return "it contains `__`, the separator of tool names";
  if (name.startsWith("_") || name.endsWith("_"))
    return "it starts or ends with `_`, which would run into the `__` separator of tool names";
  return null;
}

/** The parts a rule names, or null when it is not an MCP rule. */
function partsOf(rule: string): { server: string; tool: string | null } | null {
  if (!rule.startsWith("mcp__")) return null;
  const rest = rule.slice("mcp__".length);
  const at = rest.indexOf("__");
  if (at < 0) return rest === "" ? null : { server: rest, tool: null };
  return { server: rest.slice(0, at), tool: rest.slice(at + 2) };
}

function globMatches(pattern: string, value: string): boolean {
  if (!pattern.includes("*")) return pattern === value;
  const source = pattern
    .split("*")
    .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${source}$`, "s").test(value);
}

/**
 * Whether `rule` names the tool `listed` (`mcp__<server>__<tool>` as the model sees it) of `server`,
 * whose own name is `original`: the server part must match the server, the tool part the tool.
 */
export function ruleNames(
  rule: string,
  server: string,
  listed: string,
  original: string | null = null,
): boolean {
  const parts = partsOf(rule);
  if (!parts || !globMatches(parts.server, server)) return false;
  if (parts.tool === null || parts.tool === "*") return true;
  const prefix = `mcp__${server}__`;
  const shown = listed.startsWith(prefix) ? listed.slice(prefix.length) : null;
  return (
    (shown !== null && globMatches(parts.tool, shown)) ||
    (original !== null && globMatches(parts.tool, original))
  );
}
