// How bytes reach a server, for the model endpoints and the web tools alike: one HTTP client (proxies,
// redirects, decompression, keep-alive, pinned addresses) and one proxy module.
export {
  createHttpFetch,
  DECODED_ENCODINGS,
  type HttpClientOptions,
  type HttpFetch,
  type HttpRequestInit,
  type HttpResponse,
  httpFetch,
  readText,
} from "./http-client.ts";
export { type ProxyEnv, proxied } from "./proxy.ts";
