// Proxies, as the usual environment variables name them: which URLs go through one, and the agents
// that send them there (CONNECT for https). Used by the model endpoints' requests and the web tools'.
import type { Agent } from "node:http";

/** The proxy settings an HTTP client honours, as the usual environment variables name them. */
export interface ProxyEnv {
  HTTP_PROXY?: string | undefined;
  HTTPS_PROXY?: string | undefined;
  NO_PROXY?: string | undefined;
}

/** The agent for a request's target: the proxy's, or undefined (direct). */
export type ProxyAgentFor = (target: URL) => Agent | undefined;

/** Whether this URL goes through the proxy (a proxy is set for its scheme and NO_PROXY spares it not). */
export function proxied(url: URL, proxy: ProxyEnv | null | undefined): boolean {
  if (!proxy) return false;
  const setting = url.protocol === "https:" ? proxy.HTTPS_PROXY : proxy.HTTP_PROXY;
  return setting !== undefined && setting !== "" && !bypassed(url, proxy.NO_PROXY);
}

/** The proxy a URL goes through, as a URL (credentials included: never print it whole), or null. */
export function proxyOf(url: URL, proxy: ProxyEnv | null | undefined): URL | null {
  if (!proxy || !proxied(url, proxy)) return null;
  return URL.parse((url.protocol === "https:" ? proxy.HTTPS_PROXY : proxy.HTTP_PROXY) ?? "");
}

// Node's agents take `proxyEnv` from 24.5 and 22.21; older ones ignore the option without a word, and
// every request would go around the proxy. Those get the proxy-agents packages' agents instead.
function nativeProxyAgents(): boolean {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  return major > 24 || (major === 24 && minor >= 5) || (major === 22 && minor >= 21);
}

/**
 * The keep-alive agents for these settings, using Node's own proxy support in its HTTP agents where
 * it has it; a URL that goes direct gets none.
 */
export async function proxyAgents(proxy: ProxyEnv): Promise<ProxyAgentFor> {
  if (nativeProxyAgents()) {
    const http = process.getBuiltinModule("node:http") as typeof import("node:http");
    const https = process.getBuiltinModule("node:https") as typeof import("node:https");
    const proxyEnv = { ...proxy };
    const native = {
      "http:": new http.Agent({ keepAlive: true, proxyEnv }),
      "https:": new https.Agent({ keepAlive: true, proxyEnv }),
    };
    return (target) =>
      proxied(target, proxy) ? native[target.protocol as "http:" | "https:"] : undefined;
  }
  const [{ HttpProxyAgent }, { HttpsProxyAgent }] = await Promise.all([
    import("http-proxy-agent"),
    import("https-proxy-agent"),
  ]);
  const httpAgent = proxy.HTTP_PROXY
    ? new HttpProxyAgent(proxy.HTTP_PROXY, { keepAlive: true })
    : undefined;
  const httpsAgent = proxy.HTTPS_PROXY
    ? new HttpsProxyAgent(proxy.HTTPS_PROXY, { keepAlive: true })
    : undefined;
  return (target) =>
    !proxied(target, proxy) ? undefined : target.protocol === "https:" ? httpsAgent : httpAgent;
}

function bypassed(target: URL, noProxy: string | undefined): boolean {
  return (noProxy ?? "")
    .split(",")
    .map((entry) => entry.trim().toLowerCase())
    .some((entry) => {
      if (entry === "*") return true;
      const [host = "", port] = entry.replace(/^\./, "").split(/:(?=\d+$)/);
      const targetPort = target.port || (target.protocol === "https:" ? "443" : "80");
      if (port !== undefined && port !== targetPort) return false;
      const name = target.hostname.toLowerCase().replace(/^\[|\]$/g, "");
      return host !== "" && (name === host || name.endsWith(`.${host}`));
    });
}
