// MCP's HTTP servers reached through nex's own HTTP client, so HTTP_PROXY, HTTPS_PROXY and NO_PROXY
// apply to them as to the model's endpoint: the SDK's transports take any fetch, and the global one
// ignores the proxy variables.
import type { HttpFetch } from "../../providers/index.ts";
import type { NexConfig } from "../config/index.ts";
import { endpointFetch } from "../config/index.ts";

/** What the MCP SDK's transports call: fetch's shape. */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

// Statuses whose response has no body, which the Response constructor insists on.
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** A fetch for the MCP transports over `http` (a proxied client). */
export function fetchForMcp(http: HttpFetch): FetchLike {
  return async (url, init = {}) => {
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    let body: string | undefined;
    if (typeof init.body === "string") body = init.body;
    else if (init.body instanceof URLSearchParams) {
      // OAuth's token requests send a form, as fetch would label it.
      body = init.body.toString();
      headers["content-type"] ??= "application/x-www-form-urlencoded;charset=UTF-8";
    } else if (init.body != null) {
      throw new TypeError("fetch failed", {
        cause: new Error("nex's MCP client sends text bodies only"),
      });
    }
    const method = (init.method ?? "GET").toUpperCase();
    const response = await http(String(url), {
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
      ...(init.signal ? { signal: init.signal } : {}),
      redirect: init.redirect === "manual" || init.redirect === "error" ? "manual" : "follow",
    });
    if (init.redirect === "error" && response.status >= 300 && response.status < 400) {
      throw new TypeError("fetch failed", { cause: new Error("unexpected redirect") });
    }
    const noBody = NULL_BODY.has(response.status) || method === "HEAD" || !response.body;
    try {
      return new Response(noBody ? null : ReadableStream.from(response.body ?? []), {
        status: response.status,
        headers: [...(response.headers.entries?.() ?? [])],
      });
    } catch (error) {
      // A status fetch cannot represent (below 200, say): a failed request, as fetch reports one.
      throw new TypeError("fetch failed", { cause: error });
    }
  };
}

/** The MCP transports' fetch for a configuration: nex's proxied client when a proxy is set. */
export function mcpFetchFor(config: NexConfig): { fetch?: FetchLike } {
  return config.proxy ? { fetch: fetchForMcp(endpointFetch(config)) } : {};
}
