// What the web tools take from the session, and what they load at their first call.
import type { ToolContext } from "../../tools/index.ts";
import type { WebClient, WebSearch } from "../../web/index.ts";
import type { NexConfig } from "../config/index.ts";
import type { SummarizeInput } from "../context/index.ts";

type Web = typeof import("../../web/index.ts");
type Env = Record<string, string | undefined>;

/** What the web tools need from the session. */
export interface WebToolParts {
  config: NexConfig;
  env: Env;
  /** The session's summarise step (its model and endpoint). */
  summarize: (input: SummarizeInput, signal: AbortSignal) => Promise<string>;
  /** The model's window in tokens now, for how much of a page a summary request may carry. */
  window: () => number;
  /** One request to the session's model with no tools (deep_research's plan and synthesis). */
  ask?: (system: string, prompt: string, ctx: ToolContext) => Promise<string>;
}

/** The web client and its libraries, once loaded. */
export interface Loaded {
  web: Web;
  client: WebClient;
  search: WebSearch;
}
