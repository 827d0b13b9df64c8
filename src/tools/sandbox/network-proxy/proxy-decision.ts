// What the proxy decides for each host:port a command asks for: refused (not allowed, or it leads
// somewhere only a host listed by its own name may reach), failed (no answer from DNS), or the
// checked addresses to connect to. Keeps what was refused and what failed, to tell the model.
import { isIP } from "node:net";
import { entryFor, type HostAllowlist, normalHost } from "./allowlist.ts";

/** Every address of a name, as `dns.lookup(host, { all: true })` gives them. */
export type ResolveHost = (host: string) => Promise<{ address: string }[]>;

export interface FilterProxyOptions {
  allow: HostAllowlist;
  /** Why an address is not public ("loopback", "private", ...), or null for a public one. */
  addressKind: (address: string) => string | null;
  /** Name resolution (tests map names to loopback addresses); the system's by default. */
  resolve?: ResolveHost;
}

/** A connection the proxy refused, told to the model after the command. */
export interface Refusal {
  host: string;
  port: number;
  /** Why, when the host is allowed but where it leads is not ("resolves to a loopback address"). */
  why: string | null;
  /** The `allowHosts` entry that would allow it. */
  entry: string;
}

// A command that tries a thousand hosts is told of the first ones.
const MAX_REFUSALS = 50;

const systemResolve: ResolveHost = async (host) =>
  (await import("node:dns")).promises.lookup(host, { all: true, verbatim: true });

/** The text a refused client reads and the note the model gets. */
export function refusalText(refusal: Refusal): string {
  const target = `${refusal.host.includes(":") ? `[${refusal.host}]` : refusal.host}:${refusal.port}`;
  const why = refusal.why ? ` ${refusal.why}` : "";
  return `Blocked by the sandbox's network filter: ${target}${why} (allow it with sandbox.allowHosts: ["${refusal.entry}"] in your nex config, or --allow-host ${refusal.entry}).`;
}

export type Decision =
  | { type: "go"; addresses: string[] }
  | { type: "refused"; refusal: Refusal }
  | { type: "failed"; status: number; message: string };

/** Decides each request, and remembers what it refused and what failed. */
export interface Decider {
  decide(rawHost: string, port: number): Promise<Decision>;
  /** An allowed host that could not be reached: the client's answer, and a note for the model. */
  failed(text: string): string;
  refusals(): Refusal[];
  failures(): string[];
}

export function createDecider(options: FilterProxyOptions): Decider {
  const resolveHost = options.resolve ?? systemResolve;
  const refused = new Map<string, Refusal>();
  const failures = new Set<string>();
  const failed = (text: string): string => {
    if (failures.size < MAX_REFUSALS) failures.add(text);
    return text;
  };

  const decide = async (rawHost: string, port: number): Promise<Decision> => {
    const host = normalHost(rawHost);
    const refuse = (why: string | null, entry = entryFor(host, port)): Decision => {
      const refusal = { host, port, why, entry };
      const key = `${host}:${port}`;
      if (!refused.has(key) && refused.size < MAX_REFUSALS) refused.set(key, refusal);
      return { type: "refused", refusal };
    };
    if (host === "" || !Number.isInteger(port) || port < 1 || port > 65535)
      return { type: "failed", status: 400, message: "The proxy needs a host and a port." };
    const rule = options.allow.allows(host, port);
    if (!rule) return refuse(null);
    let addresses: string[];
    try {
      addresses = isIP(host) ? [host] : (await resolveHost(host)).map((one) => one.address);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "no answer";
      return {
        type: "failed",
        status: 502,
        message: failed(`Could not resolve ${host} (${code}).`),
      };
    }
    // A name under a preset or a wildcard never leads to this machine or its network: only a host
    // the user listed by itself may (a registry on the LAN).
    const usable = addresses.filter((address) => rule.exact || !options.addressKind(address));
    if (usable.length === 0) {
      const first = addresses[0] ?? "";
      const kind = options.addressKind(first) ?? "no";
      return refuse(
        `resolves to a ${kind} address (${first}), which only a host listed by its own name may reach`,
        entryFor(host, port, true),
      );
    }
    return { type: "go", addresses: usable };
  };

  return {
    decide,
    failed,
    refusals: () => [...refused.values()],
    failures: () => [...failures],
  };
}
