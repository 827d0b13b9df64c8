// Keeps the fixed prompt overhead small on small windows: tools marked `deferred` (MCP servers', web,
// subagents: many and rarely used) are listed by name and a few words (the tool's `brief`, else its
// description's cut first sentence) in `load_tools`'s description;
// their schemas join the requests only after the model loads them. The rest of every request stays
// the same, so a server's prompt cache keeps its prefix.
import type { ToolHost, ToolOutcome, ToolSpec } from "../../protocol/index.ts";

/** The name of the built-in tool that loads deferred tools. */
export const LOAD_TOOLS = "load_tools";
/** Windows up to this size load deferred tools on demand; larger ones get every schema at once. */
export const ON_DEMAND_WINDOW = 32_768;
// A description is cut to its first sentence, and to this many characters, in the listing.
const LINE_LIMIT = 32;

/**
 * The host with deferred tools held back while `window()` is at most 32k. A call to a deferred tool
 * that was not loaded still runs (the host validates its arguments against its schema) and loads it.
 */
export function onDemandTools<T extends ToolHost>(
  host: T,
  deferredNow: ReadonlySet<string> | (() => ReadonlySet<string>),
  window: () => number,
): T {
  // Tools come and go (an MCP server's list changed): which are deferred is asked each time.
  const deferredSet = typeof deferredNow === "function" ? deferredNow : () => deferredNow;
  const loaded = new Set<string>();
  let published: { all: ToolSpec[]; key: string; specs: ToolSpec[] } | null = null;
  const specs = (): ToolSpec[] => {
    const all = host.specs();
    const deferred = deferredSet();
    if (deferred.size === 0 || window() > ON_DEMAND_WINDOW) return all;
    // The same array while nothing changes, so the budget counts the tools once.
    const key = [...loaded].join("\0");
    if (published?.key === key && published.all === all) return published.specs;
    const kept = all.filter((spec) => !deferred.has(spec.name));
    // Loaded tools go last, in the order they were loaded: what was sent before stays as it was.
    const added = [...loaded].flatMap((name) => all.filter((spec) => spec.name === name));
    const listing = loadToolsSpec(all.filter((s) => deferred.has(s.name)));
    published = { all, key, specs: [...kept, listing, ...added] };
    return published.specs;
  };
  return {
    ...host,
    specs,
    readOnly: (name) => name === LOAD_TOOLS || (host.readOnly?.(name) ?? false),
    parallel: (name) => name === LOAD_TOOLS || (host.parallel?.(name) ?? false),
    async permission(call) {
      if (call.name === LOAD_TOOLS) return { type: "allow" };
      return host.permission(call);
    },
    async execute(call, signal) {
      const deferred = deferredSet();
      if (call.name === LOAD_TOOLS) return load(call.args, host.specs(), deferred, loaded);
      if (deferred.has(call.name)) loaded.add(call.name);
      return host.execute(call, signal);
    },
  };
}

function loadToolsSpec(deferred: ToolSpec[]): ToolSpec {
  const listing = deferred
    .map((spec) => `- ${spec.name}: ${spec.brief ?? firstLine(spec.description)}`)
    .join("\n");
  return {
    name: LOAD_TOOLS,
    description: `Adds tools for your next turn:\n${listing}`,
    parameters: {
      type: "object",
      properties: { names: { type: "array", items: { type: "string" } } },
      required: ["names"],
      additionalProperties: false,
    },
  };
}

function firstLine(description: string): string {
  const sentence = description.split(/(?<=\.)\s|\n/)[0]?.trim() ?? "";
  return sentence.length > LINE_LIMIT ? `${sentence.slice(0, LINE_LIMIT - 1)}…` : sentence;
}

function load(
  args: Record<string, unknown>,
  all: ToolSpec[],
  deferred: ReadonlySet<string>,
  loaded: Set<string>,
): ToolOutcome {
  const names = args.names;
  const available = [...deferred].join(", ");
  if (!Array.isArray(names) || names.length === 0 || names.some((n) => typeof n !== "string")) {
    return {
      isError: true,
      code: "invalid_arguments",
      content: `load_tools needs \`names\`: a non-empty list of tool names, from: ${available}.`,
    };
  }
  // load_tools is a tool too (a small model lists every tool it was told of): not "no tool named".
  const unknown = names.filter(
    (name) => name !== LOAD_TOOLS && !deferred.has(name) && !all.some((s) => s.name === name),
  );
  const missing = unknown.length > 0 ? notFound(unknown, available) : "";
  const known = names.filter((name) => !unknown.includes(name));
  // The names that exist load even beside unknown ones, and the answer says which did and which did
  // not (r12 fix-test-js: three real names and two unknown loaded none, said only of the unknown).
  if (known.length === 0) return { isError: true, code: "not_found", content: missing };
  const fresh = known.filter((name) => deferred.has(name) && !loaded.has(name));
  for (const name of fresh) loaded.add(name);
  const already = known.filter((name) => !fresh.includes(name));
  return {
    isError: false,
    content:
      (fresh.length > 0
        ? `Loaded ${fresh.join(", ")}: call ${fresh.length === 1 ? "it" : "them"} from your next turn.`
        : "Nothing new to load.") +
      (already.length > 0 ? ` Already in your tools: ${already.join(", ")}.` : "") +
      (missing === "" ? "" : ` Not loaded: ${missing}`),
  };
}

/** What the model is told of names that are no tool it can load. */
function notFound(unknown: string[], available: string): string {
  // A small model asks load_tools for the files of its task (Qwen2.5-Coder 1.5B in bench/eval).
  const files = unknown.filter((name) => /[./]/.test(name));
  const hint =
    files.length > 0
      ? ` ${files.join(", ")} ${files.length === 1 ? "is a file name, not a tool" : "are file names, not tools"}: read a file with read_file.`
      : "";
  return `No tool named ${unknown.join(", ")}. Tools you can load: ${available}.${hint}`;
}
