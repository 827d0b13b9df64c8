// Proxies for web fetches, as the usual variables name them. Through a proxy the proxy resolves the
// name; nex has checked its own answer for that name first, so a private address is still refused.
import type { Agent } from "node:http";

/** The proxy settings, as the runtime read them from the environment. */
export interface ProxyEnv {
  HTTP_PROXY?: string | undefined;
  HTTPS_PROXY?: string | undefined;
  NO_PROXY?: string | undefined;
}

const agents = new WeakMap<ProxyEnv, { "http:": Agent; "https:": Agent }>();

/** The agent that sends this URL through the proxy, or null when it goes direct. */
export function proxyFor(url: URL, proxy: ProxyEnv | null): Agent | null {
  if (!proxy) return null;
  const setting = url.protocol === "https:" ? proxy.HTTPS_PROXY : proxy.HTTP_PROXY;
  if (!setting || bypassed(url, proxy.NO_PROXY)) return null;
  let pair = agents.get(proxy);
  if (!pair) {
    const http = process.getBuiltinModule("node:http") as typeof import("node:http");
    const https = process.getBuiltinModule("node:https") as typeof import("node:https");
    const proxyEnv = { ...proxy };
    pair = {
      "http:": new http.Agent({ proxyEnv } as import("node:http").AgentOptions),
      "https:": new https.Agent({ proxyEnv } as import("node:https").AgentOptions),
    };
    agents.set(proxy, pair);
  }
  return pair[url.protocol as "http:" | "https:"];
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
