// Some models name a tool the way their chat template addresses it (`functions.write_file`,
// `default_api.read_file`), and some servers pass that on. The tool meant is not in doubt, so the
// prefix is dropped before anything looks at the call: permissions, dispatch and history alike.
// Small models also write the tool followed by what it should do (`bash python3 main.py`, after being
// told to call bash with {"command": "python3 main.py"}: Qwen2.5-Coder 0.5B, fix-import): the tool is
// the first word, and the call's arguments are judged by that tool as any call's are.
const NAMESPACES = ["functions.", "function.", "tools.", "default_api."];

/** The session's own name for a tool the model named with a namespace; other names unchanged. */
export function canonicalToolName(name: string, known: readonly string[]): string {
  if (known.includes(name)) return name;
  for (const prefix of NAMESPACES) {
    const bare = name.startsWith(prefix) ? name.slice(prefix.length) : null;
    if (bare !== null && known.includes(bare)) return bare;
  }
  const first = /^(\S+)\s+\S/.exec(name)?.[1];
  if (first !== undefined && known.includes(first)) return first;
  return name;
}

/**
 * A call named by the command it runs, with bash's arguments (tool `node --test` with
 * {"command": "node --test src/slugify.js"}: Qwen2.5-Coder 0.5B, fix-test-js) is that bash call: the
 * command starts with the name, so nothing about it is guessed. Any other name stays as it came.
 */
export function commandNamedTool(name: string, args: unknown, known: readonly string[]): string {
  if (known.includes(name) || !known.includes("bash")) return name;
  if (typeof args !== "object" || args === null || Array.isArray(args)) return name;
  const { command, ...rest } = args as Record<string, unknown>;
  if (typeof command !== "string" || Object.keys(rest).some((key) => !BASH_KEYS.has(key)))
    return name;
  const words = command.trim();
  return words === name.trim() || words.startsWith(`${name.trim()} `) ? "bash" : name;
}

const BASH_KEYS = new Set(["timeout_seconds", "background"]);
