// The web client: a guarded HTTP client, pages read as text, search backends and research. It speaks
// a wire and knows no loop; the runtime adapts it into tools.

export type { ProxyEnv } from "../net/index.ts";
export { hostKey, privateKind } from "./address-guard.ts";
export { UnreadableType } from "./page-content.ts";
export { redactUrl, redactUrlsIn } from "./redact-url.ts";
export { type ResearchParts, research, type Summarise } from "./research.ts";
export { DEFAULT_URLS, type SearchBackend, type SearchHit } from "./search-backends.ts";
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
