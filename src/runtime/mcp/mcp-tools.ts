// MCP servers' tools under the one tool contract: validated by the same dispatcher (Ajv, no
// coercion), asked about like any tool that acts outside nex's reach, checkpointed and fitted to the
// window like every result. What a call reports is what the server said, or that nobody knows.
import type { CallOutcome, ListedTool, McpHub } from "../../mcp/index.ts";
import type { ToolOutcome } from "../../protocol/index.ts";
import {
  checkOutput,
  defineJsonSchemaTool,
  type Tool,
  ToolSchemaError,
} from "../../tools/index.ts";

// A description is for choosing the tool; a server's essay is cut, not sent every turn.
const DESCRIPTION_LIMIT = 2_000;
// Every listed tool rides along in every request: a server cannot fill the window with them.
const TOOLS_PER_SERVER = 128;
const SCHEMA_LIMIT = 32 * 1024;

/** The servers' tools as nex tools, rebuilt only when a tool list changed. */
export interface McpTools {
  /** The current tools (the same array until a list changes). */
  current(): readonly Tool[];
  /** Rebuilds after a change; resolves when the new list is in place. */
  rebuild(): Promise<void>;
  /** Tools left out, each with why (a schema that does not compile). */
  skipped(): string[];
  listed(name: string): ListedTool | undefined;
}

type Mcp = typeof import("../../mcp/index.ts");

export function createMcpTools(hub: McpHub, mcp: Mcp): McpTools {
  let tools: readonly Tool[] = [];
  let byName = new Map<string, ListedTool>();
  let skipped: string[] = [];
  let built = -1;
  let building: Promise<void> | null = null;
  const rebuild = async (): Promise<void> => {
    if (built === hub.version) return;
    const version = hub.version;
    const listed = hub.tools();
    const next: Tool[] = [];
    const left: string[] = [];
    const perServer = new Map<string, number>();
    for (const entry of listed) {
      const server = entry.server.config.name;
      const schemaBytes = JSON.stringify(entry.tool.inputSchema).length;
      if (schemaBytes > SCHEMA_LIMIT) {
        left.push(
          `${entry.name}: its input schema is ${Math.round(schemaBytes / 1024)} KiB, more than the ${SCHEMA_LIMIT / 1024} KiB a tool may add to every request.`,
        );
        continue;
      }
      const offered = perServer.get(server) ?? 0;
      if (offered >= TOOLS_PER_SERVER) {
        if (!left.some((line) => line.startsWith(`${server}: tools past`)))
          left.push(
            `${server}: tools past its first ${TOOLS_PER_SERVER} (it lists ${listed.filter((e) => e.server === entry.server).length}); so many would crowd the model's window.`,
          );
        continue;
      }
      try {
        next.push(await adapt(entry, mcp));
        perServer.set(server, offered + 1);
      } catch (error) {
        if (!(error instanceof ToolSchemaError)) throw error;
        left.push(`${entry.name}: ${error.message}`);
      }
    }
    tools = next;
    const offered = new Set(next.map((tool) => tool.name));
    byName = new Map(
      listed.filter((entry) => offered.has(entry.name)).map((entry) => [entry.name, entry]),
    );
    skipped = left;
    built = version;
  };
  return {
    current: () => {
      if (built !== hub.version && !building)
        building = rebuild().finally(() => {
          building = null;
        });
      return tools;
    },
    rebuild: async () => {
      while (building) await building;
      await rebuild();
    },
    skipped: () => skipped,
    listed: (name) => byName.get(name),
  };
}

async function adapt(entry: ListedTool, mcp: Mcp): Promise<Tool> {
  const { server, tool } = entry;
  const description = tool.description || tool.annotations?.title || tool.name;
  return defineJsonSchemaTool({
    name: entry.name,
    description: `${description.length > DESCRIPTION_LIMIT ? `${description.slice(0, DESCRIPTION_LIMIT)}…` : description} (MCP server ${server.config.name})`,
    inputSchema: withoutDialect(tool.inputSchema),
    // Many and rarely all needed: on small windows the model loads the ones it wants.
    deferred: true,
    // Whatever the server's hints say, nex cannot confine or undo it: it asks in ask mode.
    mutates: "exec",
    // A read-only hint buys only running beside other calls (unless the user's entry says no): a
    // lying server gains no permission, and its changes are still checkpointed.
    ...(tool.annotations?.readOnlyHint === true && server.config.limits.parallelReads
      ? { parallel: true }
      : {}),
    summarize: async (args) =>
      `${entry.name} ${JSON.stringify(args).slice(0, 300)}${hintNote(entry)}`,
    async execute(args, ctx) {
      const restart = await server.restartIfCrashed();
      const current = server.tools.find((offered) => offered.name === tool.name);
      if (server.state !== "connected" || !current)
        return {
          isError: true,
          code: "failed",
          content: `${entry.name} was not run: ${
            server.state === "connected"
              ? `the MCP server ${server.config.name} no longer offers ${tool.name} (its tool list changed)`
              : (restart ??
                `the MCP server ${server.config.name} is ${server.state}${server.lastError ? ` (${server.lastError})` : ""}`)
          }. Nothing was sent. Use the tools it lists now, or tell the user.`,
        };
      // Undo covers what the call changes in the workspace, as for a command naming its paths.
      try {
        await ctx.checkpoints.beforeExec(ctx.turn, checkpointText(entry.name, args));
      } catch (error) {
        return {
          isError: true,
          code: "failed",
          content: `${entry.name} was not run: the undo checkpoint could not be saved (${(error as Error).message}). Nothing was sent. Tell the user.`,
        };
      }
      const first = await server.call(tool.name, args, { signal: ctx.signal });
      let outcome = await describe(entry, first, mcp);
      // Re-sent only when the server declared the tool idempotent and nobody interrupted it.
      if (
        first.type === "unknown" &&
        !first.cancelled &&
        !ctx.signal.aborted &&
        current.annotations?.idempotentHint === true &&
        current.annotations?.destructiveHint !== true
      ) {
        const again = await server.restartIfCrashed();
        const second = await server.call(tool.name, args, { signal: ctx.signal });
        const retried = await describe(entry, second, mcp);
        outcome = {
          ...retried,
          content: `The first attempt's outcome was unknown (${first.reason}); the server marks ${tool.name} idempotent, so nex sent it once more${again ? ` (${again})` : ""}.\n${retried.content}`,
        };
      }
      return restart ? { ...outcome, content: `${restart}\n${outcome.content}` } : outcome;
    },
  });
}

/**
 * The call as the checkpoint log keeps it: the tool's name and its short string arguments, quoted
 * like shell words, so undo can tell which paths the call named.
 */
function checkpointText(name: string, args: Record<string, unknown>): string {
  const words: string[] = [];
  const collect = (value: unknown, depth: number): void => {
    if (typeof value === "string" && value.length <= 1024 && !value.includes("\n"))
      words.push(`'${value.replaceAll("'", "'\\''")}'`);
    else if (depth < 3 && value && typeof value === "object")
      for (const item of Object.values(value)) collect(item, depth + 1);
  };
  collect(args, 0);
  return [name, ...words].join(" ");
}

/**
 * The schema without its `$schema` dialect: servers built on newer schema libraries name draft
 * 2020-12, which the validator would refuse to compile (and some providers refuse to receive);
 * the keywords tools use read the same.
 */
function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  if (!("$schema" in schema)) return schema;
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

function hintNote(entry: ListedTool): string {
  const hints = entry.tool.annotations;
  if (!hints) return "";
  if (hints.destructiveHint === true) return " (the server says: may destroy data)";
  if (hints.readOnlyHint === true) return " (the server says: read-only)";
  return "";
}

async function describe(entry: ListedTool, outcome: CallOutcome, mcp: Mcp): Promise<ToolOutcome> {
  const name = entry.name;
  switch (outcome.type) {
    case "not_sent":
      return {
        isError: true,
        code: "failed",
        content: `${name} was not run: ${outcome.reason}. Nothing reached the server.`,
      };
    case "rejected":
      return {
        isError: true,
        code: "failed",
        content: `${name} failed: ${outcome.reason}. Check the arguments against the tool's description, or tell the user.`,
      };
    case "unknown":
      return {
        isError: true,
        code: outcome.reason.includes("did not answer within") ? "timeout" : "failed",
        content: `${name}: outcome unknown: it may or may not have happened. ${capitalize(outcome.reason)}. nex did not send it again. Check whether it took effect (with a tool that only reads) before calling it again, or tell the user.`,
      };
    case "result":
      break;
  }
  const result = outcome.result;
  const text = mcp.resultText(result);
  if (result.isError)
    return {
      isError: true,
      code: "failed",
      content: `${name} reported an error:\n${text || "(no message)"}`,
    };
  const schema = entry.tool.outputSchema;
  if (schema) {
    if (result.structuredContent === undefined)
      return {
        isError: true,
        code: "failed",
        content: `${name} ran, but returned no structured result although it declares an output schema; its result may be incomplete. What it returned:\n${text || "(nothing)"}`,
      };
    const check = await checkOutput(schema, result.structuredContent);
    if (check.type === "invalid")
      return {
        isError: true,
        code: "failed",
        content: `${name} ran, but its structured result does not match the output schema it declares (${check.problems}); do not rely on its fields. What it returned:\n${text}`,
      };
    if (check.type === "unchecked")
      return {
        isError: false,
        content: `${text}\n[nex could not check this result: ${check.why}.]`,
      };
  }
  return { isError: false, content: text || `${name} returned nothing.` };
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The MCP tools' permission rules: `mcp__server`, `mcp__server__tool` or `mcp__server__*` in `commands`. */
export function mcpRuleCheck(
  entry: ListedTool,
  rules: { allow: string[]; deny: string[] },
  ruleNames: Mcp["ruleNames"],
): { type: "allow" } | { type: "deny"; reason: string } | null {
  const server = entry.server.config.name;
  const names = (rule: string) => ruleNames(rule, server, entry.name, entry.tool.name);
  const denied = rules.deny.find(names);
  if (denied)
    return {
      type: "deny",
      reason: `${entry.name} matches the deny rule "${denied}"; the call was not sent. Do without it, or tell the user.`,
    };
  if (rules.allow.some(names)) return { type: "allow" };
  return null;
}
