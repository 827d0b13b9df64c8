import { isAbsolute, relative, resolve } from "node:path";
import { climbsOut } from "../files/index.ts";
import type { SandboxPolicy } from "./policy.ts";

// What commands print when the sandbox stops them, by how common tools word it.
// A busy mount point is one of the sandbox's read-only paths being replaced (git renames over .git/config).
const READ_ONLY = /read-only file system|EROFS|device or resource busy|EBUSY/i;
const NETWORK =
  /could not resolve host|temporary failure in name resolution|name or service not known|network is unreachable|ENETUNREACH|EAI_AGAIN|getaddrinfo|failed to establish a new connection|failed to connect|couldn't connect|connection refused|ECONNREFUSED|unable to access '[a-z]+:\/\//i;
const NO_SPACE = /no space left on device|ENOSPC/i;
// What chmod, install, tar and Perl say when the setid filter refuses a mode.
const SETID_REFUSED =
  /(changing permissions|change permissions|chmod|sysopen).*(operation not permitted|EPERM)/i;
const QUOTED = /['‘"`]([^'’"`\n]{1,300})['’"`]/;
const HOST =
  /(?:https?:\/\/|host:?\s+'?|resolve\s+'?|getaddrinfo \w+ )([a-z0-9.-]+\.[a-z]{2,}|localhost|\d+\.\d+\.\d+\.\d+)/i;

/** The path a line of error output names, taken from its quotes or from a `tool: path: error` prefix. */
function pathIn(line: string): string | null {
  const quoted = QUOTED.exec(line)?.[1];
  if (quoted && /[/.]/.test(quoted)) return quoted;
  const parts = line.split(": ").slice(0, -1).reverse();
  for (const part of parts) {
    const candidate = part
      .trim()
      .split(/\s+/)
      .findLast((word) => word.includes("/"));
    if (candidate) return candidate;
  }
  // `bash: line 1: a.txt: Read-only file system`: a bare file name.
  return parts.map((part) => part.trim()).find((part) => /^[^\s/]*\.[^\s/]+$/.test(part)) ?? null;
}

/**
 * Lines telling the model that the sandbox, not a fault, stopped part of a command: "blocked by the
 * sandbox: <path or host>", with what is allowed, so it does not retry the same thing blindly.
 */
export function sandboxNotes(
  output: string,
  policy: SandboxPolicy,
  cwd: string,
  filtered = false,
): string[] {
  const notes = new Set<string>();
  const writable =
    policy.mode === "workspace-write"
      ? "only the workspace, /tmp and the configured paths are writable"
      : "the sandbox is read-only: nothing is writable but /tmp";
  const hidden = [...policy.hiddenDirs, ...policy.hiddenFiles];
  for (const line of output.split("\n")) {
    if (notes.size >= 5) break;
    const secret = hidden.find((path) => line.includes(path));
    if (secret) {
      notes.add(
        `Blocked by the sandbox: reading ${secret} (secrets and nex's own files are hidden from commands; ask the user if the task needs it).`,
      );
    } else if (NO_SPACE.test(line)) {
      const path = pathIn(line);
      const abs = path === null ? null : isAbsolute(path) ? path : resolve(cwd, path);
      const inTmp =
        abs === null || [...policy.tmpDirs, "/run", "/dev/shm"].some((dir) => within(abs, dir));
      if (inTmp)
        notes.add(
          `Blocked by the sandbox: a private temp folder (/tmp, /var/tmp, /run, /dev/shm) is full: each holds at most ${policy.tmpSizeBytes / 1024 / 1024} MiB. Put large files in the workspace, or the user can raise "sandbox": {"tmpSizeMiB": …}.`,
        );
    } else if (SETID_REFUSED.test(line)) {
      notes.add(
        "Blocked by the sandbox, if the mode had a setuid or setgid bit: commands cannot make files that run with their owner's rights (modes without those bits are allowed).",
      );
    } else if (READ_ONLY.test(line)) {
      const path = pathIn(line);
      const shown = path
        ? display(path, cwd, policy.workspace)
        : "a path outside the writable area";
      notes.add(`Blocked by the sandbox: writing ${shown} (${writable}).`);
    } else if (!policy.network && NETWORK.test(line)) {
      const host = HOST.exec(line)?.[1];
      notes.add(
        filtered
          ? `Blocked by the sandbox: network access${host ? ` to ${host}` : ""} (commands reach only the hosts in sandbox.allowHosts, through the proxy in HTTPS_PROXY and HTTP_PROXY; a tool that ignores those variables cannot connect).`
          : `Blocked by the sandbox: network access${host ? ` to ${host}` : ""} (commands have no network; the user can allow it with "sandbox": {"network": true}, or allow hosts with "sandbox": {"allowHosts": [...]}).`,
      );
    }
  }
  return [...notes];
}

function within(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}/`);
}

function display(path: string, cwd: string, workspace: string): string {
  const abs = isAbsolute(path) ? path : resolve(cwd, path);
  const rel = relative(workspace, abs);
  return climbsOut(rel) ? abs : rel === "" ? "." : rel;
}
