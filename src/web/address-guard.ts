// Which addresses a fetch the model asks for may reach unseen: public ones only. Loopback, private,
// link-local (cloud metadata at 169.254.169.254), CGNAT, unique-local and the IPv6 forms that embed
// such an IPv4 address need the host in `web.allowPrivateHosts` or a person's yes for the call.
import { BlockList, isIP } from "node:net";

// Built on the first address checked: a session that fetches nothing and runs no filtered command
// never needs it, and every session loads this module (the tools' definitions name privateKind).
let blockList: BlockList | null = null;

function blocked(): BlockList {
  if (blockList) return blockList;
  const list = new BlockList();
  // IPv4: "this" network, private, CGNAT (also Alibaba's metadata 100.100.100.200), loopback,
  // link-local (AWS/GCP/Azure metadata), IETF protocol assignments, documentation, benchmarking,
  // multicast, reserved and broadcast.
  for (const [net, prefix] of [
    ["0.0.0.0", 8],
    ["10.0.0.0", 8],
    ["100.64.0.0", 10],
    ["127.0.0.0", 8],
    ["169.254.0.0", 16],
    ["172.16.0.0", 12],
    ["192.0.0.0", 24],
    ["192.0.2.0", 24],
    ["192.168.0.0", 16],
    ["198.18.0.0", 15],
    ["198.51.100.0", 24],
    ["203.0.113.0", 24],
    ["224.0.0.0", 4],
    ["240.0.0.0", 4],
  ] as const) {
    list.addSubnet(net, prefix, "ipv4");
  }
  // IPv6: unspecified and loopback, unique-local (AWS metadata fd00:ec2::254), link-local, the old
  // site-local, multicast, documentation.
  for (const [net, prefix] of [
    ["::", 127],
    ["fc00::", 7],
    ["fe80::", 10],
    ["fec0::", 10],
    ["ff00::", 8],
    ["2001:db8::", 32],
  ] as const) {
    list.addSubnet(net, prefix, "ipv6");
  }
  blockList = list;
  return list;
}

/** Why an address is not public ("loopback", "private", ...), or null for a public one. */
export function privateKind(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 4) return ipv4Kind(bare);
  if (family !== 6) return "not an IP address";
  const embedded = embeddedIpv4(bare);
  if (embedded) {
    const kind = ipv4Kind(embedded);
    return kind ? `${kind} (as IPv6 ${bare})` : null;
  }
  if (blocked().check(bare, "ipv6")) {
    const lower = bare.toLowerCase();
    if (lower === "::1") return "loopback";
    if (/^f[cd]/.test(lower)) return "unique-local";
    if (/^fe[89ab]/.test(lower)) return "link-local";
    return "reserved";
  }
  return null;
}

function ipv4Kind(address: string): string | null {
  if (!blocked().check(address, "ipv4")) return null;
  if (address.startsWith("127.")) return "loopback";
  if (address === "169.254.169.254") return "cloud metadata";
  if (address.startsWith("169.254.")) return "link-local";
  if (/^100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\./.test(address)) return "carrier-grade NAT";
  if (/^(10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.)/.test(address)) return "private";
  return "reserved";
}

/** The IPv4 address inside an IPv4-mapped, IPv4-compatible, NAT64 or 6to4 IPv6 address. */
function embeddedIpv4(address: string): string | null {
  const groups = expandIpv6(address);
  if (!groups) return null;
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  const [g0 = 0, g1 = 0, g2 = 0, , , , g6 = 0, g7 = 0] = groups;
  // ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (translated), ::a.b.c.d (compatible, not :: or ::1).
  if (zeros(0, 5) && (groups[5] === 0xffff || groups[5] === 0)) {
    if (groups[5] === 0 && g6 === 0) return null;
    return v4(g6, g7);
  }
  if (zeros(0, 4) && groups[4] === 0xffff && groups[5] === 0) return v4(g6, g7);
  // 64:ff9b::a.b.c.d and 64:ff9b:1::/48 (NAT64).
  if (g0 === 0x64 && g1 === 0xff9b) return v4(g6, g7);
  // 2002:AABB:CCDD::/48 (6to4).
  if (g0 === 0x2002) return v4(g1, g2);
  return null;
}

function expandIpv6(address: string): number[] | null {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => parseInt(g, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  const fill = 8 - front.length - back.length;
  if (fill < 0 || (tail === undefined && fill !== 0)) return null;
  const groups = [...front, ...new Array<number>(fill).fill(0), ...back];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/** `host:port` of a URL as the allow list names it (default port filled in, brackets kept). */
export function hostKey(url: URL): string {
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return `${url.hostname.toLowerCase()}:${port}`;
}

/**
 * Whether the user's `allowPrivateHosts` lets this URL through: an entry `host:port` matches that
 * port only, a bare `host` every port of it. Hosts are compared by name as written in the URL.
 */
export function hostAllowed(url: URL, allowed: readonly string[]): boolean {
  const key = hostKey(url);
  const host = url.hostname.toLowerCase();
  return allowed.some((entry) => {
    // Written as a URL ("http://localhost:3000/") it means its host and port.
    const asUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(entry.trim()) ? URL.parse(entry.trim()) : null;
    const wanted = asUrl ? hostKey(asUrl) : entry.trim().toLowerCase().replace(/\/.*$/, "");
    if (wanted === key) return true;
    return wanted === host || (!/:\d+$/.test(wanted) && `[${wanted}]` === host);
  });
}
