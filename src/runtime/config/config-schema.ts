// The config file's shape (valibot): what each key holds. `nex`'s JSON Schema (docs/config.schema.json)
// is generated from it.
import * as v from "valibot";

const ApiSchema = v.picklist(["chat", "responses"]);

const EffortSchema = v.picklist(["low", "medium", "high", "off"]);

const LimitsSchema = v.strictObject({
  /** This model's API on an OpenAI endpoint, over the endpoint's. */
  api: v.optional(ApiSchema),
  contextWindow: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1024))),
  maxOutput: v.optional(v.pipe(v.number(), v.integer(), v.minValue(256))),
  /** Sent as `reasoning_effort` (OpenAI wire) or as a thinking budget (Anthropic). */
  reasoningEffort: v.optional(EffortSchema),
  /** Anthropic's `thinking.budget_tokens`; at least 1,024 and kept below `max_tokens`. */
  thinkingBudget: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1024))),
  /** The model takes images (nex knows the common vision families; this decides for the rest). */
  images: v.optional(v.boolean()),
  /** USD per million tokens, for the cost in /status and at exit (overrides nex's list prices). */
  price: v.optional(
    v.strictObject({
      input: v.pipe(v.number(), v.minValue(0)),
      output: v.pipe(v.number(), v.minValue(0)),
      cacheRead: v.optional(v.pipe(v.number(), v.minValue(0))),
      cacheWrite: v.optional(v.pipe(v.number(), v.minValue(0))),
    }),
  ),
});

/** `web` in the config file (the web tools; see web-config.ts). */
const WebConfigSchema = v.strictObject({
  /** False leaves the web tools out (their schemas cost ~280 tokens of every request). */
  enabled: v.optional(v.boolean()),
  allowPrivateHosts: v.optional(v.array(v.string())),
  search: v.optional(
    v.array(
      v.strictObject({
        type: v.picklist([
          "searxng",
          "brave",
          "tavily",
          "exa",
          "duckduckgo",
          "wikipedia",
          "hackernews",
          "stackexchange",
          "github",
        ]),
        url: v.optional(v.pipe(v.string(), v.url())),
        apiKeyEnv: v.optional(v.string()),
      }),
    ),
  ),
  /** False leaves out the backends that need no key (DuckDuckGo, Wikipedia), asked beside the rest. */
  keyless: v.optional(v.boolean()),
  /** arXiv's API (arxiv_search); its public address by default. */
  arxivUrl: v.optional(v.pipe(v.string(), v.url())),
  maxPageBytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1024))),
  timeoutSeconds: v.optional(v.pipe(v.number(), v.minValue(1), v.maxValue(600))),
});

/** The config file (`$XDG_CONFIG_HOME/nex/config.json`). Keys are never stored here: name an environment variable. */
export const ConfigFileSchema = v.strictObject({
  /** The JSON Schema an editor checks the file with (docs/config.schema.json); nex ignores it. */
  $schema: v.optional(v.string()),
  provider: v.optional(v.picklist(["openai", "anthropic"])),
  api: v.optional(ApiSchema),
  baseUrl: v.optional(v.string()),
  model: v.optional(v.string()),
  apiKeyEnv: v.optional(v.string()),
  permissionMode: v.optional(v.picklist(["plan", "ask", "auto_edit", "approve_all"])),
  maxTurns: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  /** False asks for whole responses, for servers whose streaming of tool calls is broken. */
  stream: v.optional(v.boolean()),
  dataDir: v.optional(v.string()),
  allowedPaths: v.optional(v.array(v.string())),
  commands: v.optional(
    v.strictObject({
      allow: v.optional(v.array(v.string())),
      deny: v.optional(v.array(v.string())),
    }),
  ),
  models: v.optional(v.record(v.string(), LimitsSchema)),
  /** Per project (by its absolute path): allow rules saved from an approval ("always in this project"). */
  projects: v.optional(
    v.record(
      v.string(),
      v.strictObject({
        commands: v.optional(v.strictObject({ allow: v.optional(v.array(v.string())) })),
      }),
    ),
  ),
  /** Named endpoints, each with its own server, key variable and models; one is chosen per session. */
  endpoints: v.optional(
    v.record(
      v.string(),
      v.strictObject({
        provider: v.optional(v.picklist(["openai", "anthropic"])),
        api: v.optional(ApiSchema),
        baseUrl: v.string(),
        apiKeyEnv: v.optional(v.string()),
        model: v.optional(v.string()),
        models: v.optional(v.record(v.string(), LimitsSchema)),
      }),
    ),
  ),
  /** The endpoint used when none is chosen with --endpoint. */
  endpoint: v.optional(v.string()),
  /** The reasoning effort for every model without its own `reasoningEffort`. */
  reasoningEffort: v.optional(EffortSchema),
  /** How commands are confined: a mode alone, or the mode with network and extra paths. */
  sandbox: v.optional(
    v.union([
      v.picklist(["workspace-write", "read-only", "off"]),
      v.strictObject({
        mode: v.optional(v.picklist(["workspace-write", "read-only", "off"])),
        network: v.optional(v.boolean()),
        writable: v.optional(v.array(v.string())),
        denyRead: v.optional(v.array(v.string())),
        /** Hosts commands may reach through nex's proxy while `network` is off (presets: npm, pypi, crates, github). */
        allowHosts: v.optional(v.array(v.string())),
        maxProcesses: v.optional(v.pipe(v.number(), v.integer(), v.minValue(16))),
        tmpSizeMiB: v.optional(v.pipe(v.number(), v.integer(), v.minValue(16))),
      }),
    ]),
  ),
  /** Commands that follow the session's events, in Claude Code's shape (checked when the session opens). */
  hooks: v.optional(v.record(v.string(), v.unknown())),
  /** The web tools: hosts with private addresses they may reach, search backends, limits. */
  web: v.optional(WebConfigSchema),
  /** MCP servers in the shape of Claude Code's `.mcp.json` (checked by `mcp/config.ts`). */
  mcpServers: v.optional(v.unknown()),
  /** Terminal notifications of the chat: a mode alone, or with the seconds after which a task counts as long. */
  notifications: v.optional(
    v.union([
      v.picklist(["auto", "bell", "off"]),
      v.strictObject({
        mode: v.optional(v.picklist(["auto", "bell", "off"])),
        afterSeconds: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(86_400))),
      }),
    ]),
  ),
  /** Where `nex --chat NAME` finds the chat folder NAME (a workgraph chat root such as `~/.wg/chat`). */
  chatRoot: v.optional(v.string()),
  /** Seconds to wait for a response's first byte (a big prompt on a CPU server is slow) and between chunks. */
  timeouts: v.optional(
    v.strictObject({
      firstByteSeconds: v.optional(v.pipe(v.number(), v.minValue(1), v.maxValue(3600))),
      idleSeconds: v.optional(v.pipe(v.number(), v.minValue(1), v.maxValue(3600))),
    }),
  ),
});

/** The parsed config file. */
export type ConfigFile = v.InferOutput<typeof ConfigFileSchema> & { notices?: string[] };

/** The config file's `web` section. */
export type WebConfig = v.InferOutput<typeof WebConfigSchema>;
