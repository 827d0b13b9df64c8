// What a stdio MCP server inherits from nex's environment.

// What a stdio server inherits from nex: enough to find programs, a home, a display and the
// network (a proxy without its credentials, the CA bundle), no keys or tokens. Anything else a
// server needs is given in its own `env`.
const INHERITED = [
  "HOME",
  "LOGNAME",
  "USER",
  "PATH",
  "SHELL",
  "TERM",
  "COLORTERM",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "TMPDIR",
  "TZ",
  "SYSTEMROOT",
  "DISPLAY",
  "WAYLAND_DISPLAY",
  "XDG_RUNTIME_DIR",
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
  "XDG_CACHE_HOME",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  ...["HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"].flatMap((name) => [name, name.toLowerCase()]),
  // nex's mark (`tools/shell/owner-reaper.ts`): whatever the server starts, even in a new session,
  // is ended with nex.
  "NEX_OWNER",
];

/** The environment a stdio server starts with: the harmless variables, then its own `env`. */
export function serverEnvironment(
  base: Record<string, string | undefined>,
  own: Record<string, string>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED) {
    const value = base[name];
    if (value !== undefined && !value.startsWith("()")) env[name] = value;
  }
  return { ...env, ...own };
}
