// Which hosts a sandboxed command may reach through nex's proxy: the user's `sandbox.allowHosts`,
// where an entry is a host, a `*.domain` wildcard, an IP address (each with an optional `:port`), or
// a preset naming a registry's hosts.
import { isIP } from "node:net";

/** Hosts of the package registries builds need, by the name a user writes in `allowHosts`. */
export const HOST_PRESETS: Readonly<Record<string, readonly string[]>> = {
  npm: ["registry.npmjs.org"],
  pypi: ["pypi.org", "files.pythonhosted.org"],
  crates: ["crates.io", "index.crates.io", "static.crates.io"],
  github: [
    "github.com",
    "api.github.com",
    "codeload.github.com",
    "objects.githubusercontent.com",
    "raw.githubusercontent.com",
  ],
};

/** An entry without a port opens the ports of HTTP and HTTPS, nothing else. */
const DEFAULT_PORTS = [80, 443];

/** How a host came to be allowed: the entry the user wrote, and whether it names this host itself. */
export interface AllowedBy {
  entry: string;
  /**
   * The user wrote this very host or address (not a preset, not a wildcard): only then may it
   * resolve to a loopback or private address, as a company registry on the LAN does.
   */
  exact: boolean;
}

/** The hosts commands may reach: empty means none. */
export interface HostAllowlist {
  readonly entries: readonly string[];
  allows(host: string, port: number): AllowedBy | null;
}

/** A host as compared: lower case, no trailing dot, no IPv6 brackets. */
export function normalHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

function isHostName(text: string): boolean {
  return text.length <= 253 && text.split(".").every((label) => LABEL.test(label));
}

/** An entry split into its host part and its port (null: 80 and 443). */
function splitEntry(entry: string): { host: string; port: number | null } | null {
  const text = entry.trim().toLowerCase();
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  const withPort = bracketed ? null : /^([^:]+):(\d+)$/.exec(text);
  const [host, port] = bracketed
    ? [bracketed[1] ?? "", bracketed[2]]
    : withPort
      ? [withPort[1] ?? "", withPort[2]]
      : [text, undefined];
  if (port === undefined) return { host: normalHost(host), port: null };
  const number = Number(port);
  return number >= 1 && number <= 65535 ? { host: normalHost(host), port: number } : null;
}

const PRESET_NAMES = Object.keys(HOST_PRESETS).join(", ");

/**
 * Why an `allowHosts` entry is not one, or null when it is: a preset, a dotted name, `localhost`, an
 * IP address, or `*.` before a name of two labels or more (`*.com` would allow too much).
 */
export function entryProblem(entry: string): string | null {
  if (Object.hasOwn(HOST_PRESETS, normalHost(entry))) return null;
  const split = splitEntry(entry);
  if (!split) return `"${entry}" has a port that is not a number from 1 to 65535`;
  const { host } = split;
  if (host === "localhost" || isIP(host) !== 0) return null;
  if (host.startsWith("*.")) {
    const domain = host.slice(2);
    return isHostName(domain) && domain.includes(".")
      ? null
      : `"${entry}" is not a wildcard nex takes: write *. before a domain of two labels or more, like *.example.org`;
  }
  if (!isHostName(host))
    return `"${entry}" is not a host: write a host (registry.example.com), a wildcard (*.example.org), an IP address, each with an optional :port, or a preset (${PRESET_NAMES})`;
  if (!host.includes("."))
    return `"${entry}" is neither a preset (${PRESET_NAMES}) nor a full host name; write the host with its domain, like ${host}.example.com`;
  return null;
}

interface Rule {
  host: string;
  ports: readonly number[];
  entry: string;
  kind: "exact" | "preset" | "wildcard";
}

/** The allowlist of `entries`, which `entryProblem` has already accepted. */
export function hostAllowlist(entries: readonly string[]): HostAllowlist {
  const rules: Rule[] = [];
  for (const entry of entries) {
    const preset = HOST_PRESETS[normalHost(entry)];
    if (preset && Object.hasOwn(HOST_PRESETS, normalHost(entry))) {
      for (const host of preset) rules.push({ host, ports: DEFAULT_PORTS, entry, kind: "preset" });
      continue;
    }
    const split = splitEntry(entry);
    if (!split) continue;
    const ports = split.port === null ? DEFAULT_PORTS : [split.port];
    const wildcard = split.host.startsWith("*.");
    rules.push({
      host: wildcard ? split.host.slice(1) : split.host,
      ports,
      entry,
      kind: wildcard ? "wildcard" : "exact",
    });
  }
  return {
    entries: [...entries],
    allows(host, port) {
      const name = normalHost(host);
      // An exact entry first: it is the one that may reach a private address.
      const order = ["exact", "preset", "wildcard"] as const;
      for (const kind of order) {
        const rule = rules.find(
          (one) =>
            one.kind === kind &&
            one.ports.includes(port) &&
            // `*.example.org` covers every name under example.org, not example.org itself.
            (kind === "wildcard" ? name.endsWith(one.host) : name === one.host),
        );
        if (rule) return { entry: rule.entry, exact: kind === "exact" };
      }
      return null;
    },
  };
}

/**
 * What to add to `sandbox.allowHosts` for `host:port`: its preset when one holds it, else the host
 * (with `byName`, the host itself: the entry that lets it reach a private address).
 */
export function entryFor(host: string, port: number, byName = false): string {
  const name = normalHost(host);
  const preset = Object.entries(HOST_PRESETS).find(([, hosts]) => hosts.includes(name));
  if (preset && !byName && DEFAULT_PORTS.includes(port)) return preset[0];
  const shown = isIP(name) === 6 ? `[${name}]` : name;
  return DEFAULT_PORTS.includes(port) ? shown : `${shown}:${port}`;
}
