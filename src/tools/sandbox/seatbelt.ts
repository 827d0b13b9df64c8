import type { SandboxPolicy } from "./policy.ts";

// Experimental: macOS cannot be run here, so this is tested as text only.

/** A string literal of the sandbox profile language (a Scheme dialect). */
function quote(path: string): string {
  return `"${path.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/**
 * The Seatbelt profile for `sandbox-exec -p`: everything allowed but writes outside the workspace,
 * temporary space and the configured paths; reads of hidden paths; and, unless allowed, IP network.
 * On macOS /tmp is /private/tmp, and the per-user temp dir lives under /private/var/folders.
 */
export function seatbeltProfile(policy: SandboxPolicy, tmpdir: string): string {
  const writable = policy.mode === "workspace-write" ? [policy.workspace, ...policy.writable] : [];
  const scratch = ["/private/tmp", "/private/var/tmp", tmpdir, ...policy.tmpDirs];
  const writeRoots = [...new Set([...writable, ...scratch])].map((p) => `(subpath ${quote(p)})`);
  const lines = [
    "(version 1)",
    "(allow default)",
    `(deny file-write* (require-all (require-not (literal "/dev/null")) (require-not (literal "/dev/tty"))${writeRoots.map((root) => ` (require-not ${root})`).join("")}))`,
  ];
  const hidden = [
    ...policy.hiddenDirs.map((p) => `(subpath ${quote(p)})`),
    ...policy.hiddenFiles.map((p) => `(literal ${quote(p)})`),
  ];
  if (hidden.length > 0) lines.push(`(deny file-read* ${hidden.join(" ")})`);
  if (policy.readOnly.length > 0) {
    lines.push(
      `(deny file-write* ${policy.readOnly.map((p) => `(subpath ${quote(p)})`).join(" ")})`,
    );
  }
  // Daemons that act outside any sandbox listen there (docker, launchd's helpers).
  lines.push('(deny network-outbound (remote unix-socket (subpath "/private/var/run")))');
  if (!policy.network) {
    // Unix sockets stay open (many tools talk to local daemons through them); IP does not.
    lines.push("(deny network-outbound (remote ip))", "(deny network-inbound (local ip))");
  }
  return `${lines.join("\n")}\n`;
}
