// A sandbox network by host: commands reach only the hosts the user allowed, through a proxy nex
// runs. The proxy itself (node:http) and its forwarder load with the first filtered command; the
// allow list's check of an entry is what a session's configuration needs at start-up.
import { hostAllowlist } from "./allowlist.ts";
import type { FilterProxyOptions } from "./filter-proxy.ts";
import type { FilterMount } from "./forwarder.ts";

export { entryProblem, HOST_PRESETS } from "./allowlist.ts";
export type { FilterMount } from "./forwarder.ts";

/** One command's network filter: what bubblewrap adds, what was refused, and its end. */
export interface NetworkFilter {
  mount: FilterMount;
  /** A line per host:port refused, for the command's result. */
  notes(): string[];
  close(): void;
}

// The result names a few; the rest are counted.
const SHOWN = 5;

/** Starts the proxy for one command that may reach `allowHosts`. */
export async function openNetworkFilter(options: {
  allowHosts: readonly string[];
  addressKind: FilterProxyOptions["addressKind"];
  resolve?: FilterProxyOptions["resolve"];
  /** The Node.js that runs the forwarder inside the sandbox (nex's own). */
  node: string;
  lifelineFd: number;
}): Promise<NetworkFilter> {
  const [{ refusalText, startFilterProxy }, { filterMount }] = await Promise.all([
    import("./filter-proxy.ts"),
    import("./forwarder.ts"),
  ]);
  const proxy = await startFilterProxy({
    allow: hostAllowlist(options.allowHosts),
    addressKind: options.addressKind,
    ...(options.resolve ? { resolve: options.resolve } : {}),
  });
  return {
    mount: filterMount(proxy.socket, options.node, options.lifelineFd),
    notes() {
      const refusals = proxy.refusals();
      const lines = refusals.slice(0, SHOWN).map(refusalText);
      if (refusals.length > SHOWN)
        lines.push(`The sandbox's network filter refused ${refusals.length - SHOWN} more hosts.`);
      // An allowed host that failed is the network's fault, not the filter's: said as such.
      for (const text of proxy.failures().slice(0, SHOWN))
        lines.push(`The sandbox's network proxy: ${text}`);
      return lines;
    },
    close: () => proxy.close(),
  };
}
