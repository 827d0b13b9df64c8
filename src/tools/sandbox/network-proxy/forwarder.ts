// The sandbox's way out: with its own network namespace a command has only its own loopback, so a
// small forwarder inside listens there and carries each connection to nex's proxy over the Unix
// socket bound into the sandbox. The forwarder is the command's own process and trusted with
// nothing: every decision is taken by the proxy outside.

/** Where the proxy's socket appears inside the sandbox (bubblewrap's private /dev). */
export const SANDBOX_SOCKET = "/dev/nex-proxy.sock";
/**
 * Where nex's own Node.js appears inside the sandbox: where it is installed may be hidden there (a
 * checkout or a version manager under /tmp, whose private /tmp is empty, or under a hidden home).
 */
export const SANDBOX_NODE = "/dev/nex-node";
/** The forwarder's port on the sandbox's own loopback, which no other namespace shares. */
export const SANDBOX_PROXY_PORT = 3128;

// Run as `node -e`: listens, says "ready" once (the command starts after that line), and pipes.
const FORWARDER = [
  'const net = require("node:net");',
  "net.createServer((c) => {",
  "  const u = net.connect(process.argv[1]);",
  "  c.on('error', () => u.destroy()); u.on('error', () => c.destroy());",
  "  c.pipe(u); u.pipe(c);",
  `}).listen(${SANDBOX_PROXY_PORT}, "127.0.0.1", () => process.stdout.write("ready\\n"));`,
].join(" ");

/** The proxy as every common tool reads it: curl, pip, cargo, git, npm, Node's fetch. */
export function proxyEnvironment(): Record<string, string> {
  const url = `http://127.0.0.1:${SANDBOX_PROXY_PORT}`;
  // The sandbox's own loopback is its own: a test server the command starts is reached directly.
  const direct = "localhost,127.0.0.1,::1";
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    ALL_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    all_proxy: url,
    NO_PROXY: direct,
    no_proxy: direct,
    npm_config_proxy: url,
    npm_config_https_proxy: url,
    npm_config_noproxy: direct,
    NODE_USE_ENV_PROXY: "1",
  };
}

/** What bubblewrap adds for a filtered command: the socket, the environment, the forwarder's start. */
export interface FilterMount {
  /** bubblewrap arguments: the socket bound in and the proxy variables set. */
  args: string[];
  /** Shell text run before the command; it reads its program and script from `$2` and `$3`. */
  script: string;
  /** The positional parameters after the command: the forwarder's program and script. */
  params: string[];
}

/**
 * The mount of `socket` (nex's proxy) into the sandbox, and a forwarder started with `node` (nex's
 * own Node.js) with an empty environment so nothing of the command's (NODE_OPTIONS) changes it. It is
 * started twice detached, so the command never waits on it, and the command starts once it listens.
 */
export function filterMount(socket: string, node: string, lifelineFd: number): FilterMount {
  const args = ["--bind", socket, SANDBOX_SOCKET, "--ro-bind", node, SANDBOX_NODE];
  for (const [name, value] of Object.entries(proxyEnvironment()))
    args.push("--setenv", name, value);
  return {
    args,
    // A forwarder that never says "ready" (no Node.js in sight) leaves the command without a way out:
    // it still runs, and says why its connections fail.
    script:
      `read -r _ < <((exec env -i "$2" -e "$3" ${SANDBOX_SOCKET} </dev/null 2>/dev/null ${lifelineFd}<&- &)) || ` +
      `echo "nex: the sandbox's network forwarder did not start, so no host is reachable; run nex doctor" >&2; `,
    params: [SANDBOX_NODE, FORWARDER],
  };
}
