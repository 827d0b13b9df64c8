// The web client: a guarded HTTP client, pages read as text, search backends and research. It speaks
// a wire and knows no loop; the runtime adapts it into tools.

export type { ProxyEnv } from "../net/index.ts";
export { hostKey, privateKind } from "./address-guard.ts";
export type { ArxivQuery } from "./arxiv.ts";
export type { AskModel } from "./deep-research.ts";
export { UnreadableType } from "./page-content.ts";
export { redactUrl, redactUrlsIn } from "./redact-url.ts";
export { type ResearchParts, research, type Summarise } from "./research.ts";
export {
  DEFAULT_URLS,
  type SearchBackend,
  SearchFailure,
  type SearchHit,
} from "./search-backends.ts";
export {
  createWebClient,
  type Resolve,
  type WebClient,
  type WebClientOptions,
  WebError,
} from "./web-client.ts";
export { describePage, type FetchedPage, fetchPage } from "./web-fetch.ts";
export {
  createWebSearch,
  describe,
  HOW_TO_CONFIGURE,
  SearchUnavailable,
  type WebSearch,
} from "./web-search.ts";

// Loaded at a tool's first call, not with the rest of the web client (which start-up loads for
// its address check).
export const loadArxiv = () => import("./arxiv.ts");
export const loadDeepResearch = () => import("./deep-research.ts");
