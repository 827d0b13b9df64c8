// Proxies for web fetches, as the usual variables name them. Through a proxy the proxy resolves the
// name; nex has checked its own answer for that name first, so a private address is still refused.
import type { Agent } from "node:http";

/** The proxy settings, as the runtime read them from the environment. */
export interface ProxyEnv {
  HTTP_PROXY?: string | undefined;
  HTTPS_PROXY?: string | undefined;
  NO_PROXY?: string | undefined;
}

type Agents = { "http:"?: Agent; "https:"?: Agent };

const agents = new WeakMap<ProxyEnv, Promise<Agents>>();

/** Whether this URL goes through the proxy. */
export function proxied(url: URL, proxy: ProxyEnv | null): boolean {
  if (!proxy) return false;
  const setting = url.protocol === "https:" ? proxy.HTTPS_PROXY : proxy.HTTP_PROXY;
  return setting !== undefined && setting !== "" && !bypassed(url, proxy.NO_PROXY);
}

/** The agent that sends this URL through the proxy, or null when it goes direct. */
export async function proxyAgent(url: URL, proxy: ProxyEnv | null): Promise<Agent | null> {
  if (!proxy || !proxied(url, proxy)) return null;
  let pair = agents.get(proxy);
  if (!pair) {
    pair = agentsFor(proxy);
    agents.set(proxy, pair);
  }
  return (await pair)[url.protocol as "http:" | "https:"] ?? null;
}

// Node's agents take `proxyEnv` from 24.5 and 22.21; older ones ignore the option without a word, and
// the fetch would go around the proxy. Those get the proxy-agents packages' agents instead.
async function agentsFor(proxy: ProxyEnv): Promise<Agents> {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  if (major > 24 || (major === 24 && minor >= 5) || (major === 22 && minor >= 21)) {
    const http = process.getBuiltinModule("node:http") as typeof import("node:http");
    const https = process.getBuiltinModule("node:https") as typeof import("node:https");
    const proxyEnv = { ...proxy };
    return {
      "http:": new http.Agent({ proxyEnv } as import("node:http").AgentOptions),
      "https:": new https.Agent({ proxyEnv } as import("node:https").AgentOptions),
    };
  }
  const [{ HttpProxyAgent }, { HttpsProxyAgent }] = await Promise.all([
    import("http-proxy-agent"),
    import("https-proxy-agent"),
  ]);
  return {
    ...(proxy.HTTP_PROXY ? { "http:": new HttpProxyAgent(proxy.HTTP_PROXY) } : {}),
    ...(proxy.HTTPS_PROXY ? { "https:": new HttpsProxyAgent(proxy.HTTPS_PROXY) } : {}),
  };
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
