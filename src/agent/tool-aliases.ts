// A model trained on Claude Code calls its tools by their names there (`Read {file_path}`). The tool
// meant is not in doubt, so such a call becomes the call of nex's own tool before anything looks at
// it: validation, the repeat guard, permissions, --tools and deny rules all see nex's tool, so an
// alias can never reach further than the tool it stands for. Nothing is offered under these names:
// the prompt does not grow.

/** An argument of the alias: renamed, converted, dropped (it changes nothing nex does), or refused. */
type ArgRule =
  | { to: string; convert?: (value: unknown) => unknown }
  | { drop: true }
  | { refuse: string };

interface Alias {
  tool: string;
  args: Record<string, ArgRule>;
}

const path = { to: "path" } as const;
const GREP_CONTEXT =
  "nex's grep shows matching lines only, without context; read_file around a match's line";

const ALIASES: Record<string, Alias> = {
  Read: {
    tool: "read_file",
    args: {
      file_path: path,
      pages: { refuse: "nex's read_file reads PDFs whole; call it without pages" },
    },
  },
  Write: { tool: "write_file", args: { file_path: path } },
  Edit: { tool: "edit_file", args: { file_path: path } },
  Bash: {
    tool: "bash",
    args: {
      timeout: {
        to: "timeout_seconds",
        convert: (ms) => (typeof ms === "number" ? Math.max(1, Math.ceil(ms / 1000)) : ms),
      },
      run_in_background: { to: "background" },
      description: { drop: true },
      dangerouslyDisableSandbox: {
        refuse:
          "nex runs every command in its sandbox; call bash without dangerouslyDisableSandbox",
      },
    },
  },
  Grep: {
    tool: "grep",
    args: {
      "-i": { to: "ignore_case" },
      "-n": { drop: true },
      output_mode: { drop: true },
      "-A": { refuse: GREP_CONTEXT },
      "-B": { refuse: GREP_CONTEXT },
      "-C": { refuse: GREP_CONTEXT },
      type: {
        refuse: 'nex\'s grep filters files by glob; pass glob (e.g. "*.py") instead of type',
      },
      multiline: { refuse: "nex's grep matches within one line; call it without multiline" },
      head_limit: { refuse: "nex's grep has no head_limit; call it without, with a narrower path" },
    },
  },
  Glob: { tool: "glob", args: {} },
  LS: {
    tool: "list_dir",
    args: { ignore: { refuse: "nex's list_dir has no ignore; call it without" } },
  },
  TodoWrite: {
    tool: "todo_write",
    args: { todos: { to: "todos", convert: todoItems } },
  },
  WebFetch: { tool: "web_fetch", args: { prompt: { to: "what" } } },
  WebSearch: {
    tool: "web_search",
    args: {
      allowed_domains: {
        refuse: "nex's web_search has no domain filter; put site:example.com in the query",
      },
      blocked_domains: {
        refuse: "nex's web_search has no domain filter; put -site:example.com in the query",
      },
    },
  },
  MultiEdit: {
    tool: "edit_file",
    args: {
      edits: {
        refuse: "nex has no MultiEdit; call edit_file once per edit (file_path becomes path)",
      },
    },
  },
};

/** A call under an alias, as nex's own tool; or why it cannot be one. */
export type AliasedCall =
  | { type: "call"; from: string; name: string; args: Record<string, unknown>; note: string }
  | { type: "refused"; from: string; name: string; reason: string };

/**
 * The call as nex's tool when `name` is a Claude Code name that no tool of this session bears (a
 * tool of that very name, an MCP server's, wins); else null.
 */
export function resolveAlias(
  name: string,
  args: Record<string, unknown>,
  known: readonly string[],
): AliasedCall | null {
  if (known.includes(name) || !Object.hasOwn(ALIASES, name)) return null;
  const alias = ALIASES[name] as Alias;
  const out: Record<string, unknown> = {};
  const renamed: string[] = [];
  for (const [key, value] of Object.entries(args)) {
    const rule = Object.hasOwn(alias.args, key) ? alias.args[key] : undefined;
    // Arguments nex's tool knows by the same name pass as they are, and so do unknown ones: its
    // own validation refuses those.
    if (!rule) out[key] = value;
    else if ("drop" in rule) continue;
    else if ("refuse" in rule) {
      // A value that asks for nothing (false, an empty list) is no request to refuse.
      if (value === false || (Array.isArray(value) && value.length === 0)) continue;
      return {
        type: "refused",
        from: name,
        name: alias.tool,
        reason: `${name} is nex's ${alias.tool}, and \`${key}\` cannot be honoured: ${rule.refuse}.`,
      };
    } else {
      out[rule.to] = rule.convert ? rule.convert(value) : value;
      if (rule.to !== key) renamed.push(`\`${key}\` is its \`${rule.to}\``);
    }
  }
  const names = renamed.length > 0 ? ` (${renamed.join(", ")})` : "";
  return {
    type: "call",
    from: name,
    name: alias.tool,
    args: out,
    note: `[nex: ${name} ran as nex's ${alias.tool}${names}; call nex's tools by their own names.]`,
  };
}

/** The tool an alias stands for (for a call whose arguments did not arrive whole); else the name. */
export function aliasTarget(name: string, known: readonly string[]): string {
  if (known.includes(name) || !Object.hasOwn(ALIASES, name)) return name;
  return (ALIASES[name] as Alias).tool;
}

// Claude Code's todo items carry an `activeForm` (and older ones an `id` and a `priority`) that
// nex's list does not keep.
function todoItems(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((item) => {
    if (typeof item !== "object" || item === null) return item;
    const {
      activeForm: _form,
      id: _id,
      priority: _priority,
      ...rest
    } = item as Record<string, unknown>;
    return rest;
  });
}
