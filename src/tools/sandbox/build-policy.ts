import { existsSync, mkdirSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { envNamesIn } from "./env-files.ts";
import { commonDirOf } from "./git-files.ts";
import { gitControlFiles } from "./git-plants.ts";
import type { SandboxBackend, SandboxMode, SandboxPolicy } from "./policy.ts";

/** What the user configured and what nex knows about its own files. */
export interface SandboxSettings {
  mode: SandboxMode;
  network: boolean;
  /** Extra writable paths (`~` allowed). */
  writable?: string[];
  /** Extra paths commands must not read (`~` allowed), added to the defaults. */
  denyRead?: string[];
  /** Most processes while a command runs (default 4096). */
  maxProcesses?: number;
  /** Most MiB in each of a command's private temp folders (default 512). */
  tmpSizeMiB?: number;
  /** nex's data directory, config directory and anything else of nex's own. */
  privatePaths?: string[];
  /**
   * Paths commands may read but not change, as git's control files are held (the chat folder `--chat`
   * serves from inside the workspace: what is written there speaks as the user).
   */
  readOnly?: string[];
  /** With `network` off, the hosts commands may still reach through nex's proxy (`network-proxy/`). */
  allowHosts?: string[];
  /** Why an address is not public, or null: the runtime passes the web tools' guard. */
  addressKind?: (address: string) => string | null;
  /** The proxy's name resolution; tests map names to loopback addresses. */
  resolveHost?: (host: string) => Promise<{ address: string }[]>;
}

/** The private temp folders' size when the user sets none: room for a build's scratch files. */
export const DEFAULT_TMP_MIB = 512;

/** Secrets in the home directory that no command of a coding agent needs to read. */
export const DEFAULT_DENIED = [
  "~/.ssh",
  "~/.aws",
  "~/.gnupg",
  "~/.config/nex",
  "~/.azure",
  "~/.kube",
  "~/.docker/config.json",
  "~/.netrc",
  "~/.git-credentials",
  "~/.pypirc",
  "~/.config/gcloud",
  "~/.config/gh",
];

function expand(path: string, home: string | undefined, base: string): string {
  if (path === "~" || path.startsWith("~/")) {
    if (!home) return "";
    return join(home, path.slice(1));
  }
  return isAbsolute(path) ? path : resolve(base, path);
}

/** The real path of an existing path, or null: bubblewrap can only mount over what exists. */
function real(path: string): string | null {
  if (path === "") return null;
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

function isWithin(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`);
}

/**
 * `.env*` files in the home directory and in every folder above the workspace: a project's own
 * `.env` is its business, but one beside it or above it belongs to something else. A folder inside
 * one of the command's private memory-backed folders (a workspace under /tmp) is not listed: that
 * folder's host contents are out of sight already, and it is often the most crowded and busiest
 * folder of the machine, read again before every command. Unless a writable path brings it back
 * into view: then its `.env*` files are hidden as anywhere else.
 */
function envFilesAround(
  workspace: string,
  home: string | undefined,
  privateDirs: string[],
  writable: string[],
): string[] {
  const dirs = new Set<string>();
  for (let dir = dirname(workspace); ; dir = dirname(dir)) {
    dirs.add(dir);
    if (dirname(dir) === dir) break;
  }
  if (home) dirs.add(home);
  const outOfSight = (dir: string) =>
    privateDirs.some((hidden) => isWithin(dir, hidden)) &&
    !writable.some((shown) => isWithin(dir, shown));
  const found: string[] = [];
  for (const dir of dirs) {
    if (isWithin(dir, workspace)) continue;
    if (outOfSight(real(dir) ?? dir)) continue;
    for (const name of envNamesIn(dir) ?? []) found.push(join(dir, name));
  }
  return found;
}

/**
 * The policy for commands in `workspace` (its real path). Paths that do not exist are left out (nothing
 * to hide, and bubblewrap cannot mount on a missing path of a read-only tree); `.git/hooks` is made if
 * missing so that it can be held read-only. `backend` says whether the temp folders are private
 * (bubblewrap mounts its own over them; Seatbelt leaves the host's in view).
 */
export function buildPolicy(
  workspace: string,
  settings: SandboxSettings & { mode: Exclude<SandboxMode, "off"> },
  home: string | undefined,
  backend?: SandboxBackend,
): SandboxPolicy {
  const root = real(workspace) ?? workspace;
  const tmpDirs = ["/tmp", "/var/tmp"].filter((dir) => real(dir) === dir);
  const runDir =
    real("/run") === "/run" && !isWithin(root, "/run") && !isWithin("/run", root) ? "/run" : null;
  const writable = (settings.writable ?? [])
    .map((path) => real(expand(path, home, root)))
    .filter((path): path is string => path !== null && path !== "/");
  const hidden = [
    ...DEFAULT_DENIED,
    ...(settings.denyRead ?? []),
    ...(settings.privatePaths ?? []),
  ].map((path) => expand(path, home, root));
  const privateDirs = backend !== "bwrap" ? [] : runDir ? [...tmpDirs, runDir] : tmpDirs;
  const hiddenDirs: string[] = [];
  const hiddenFiles: string[] = [];
  for (const path of [
    ...new Set([...hidden, ...envFilesAround(root, home, privateDirs, writable)]),
  ]) {
    const target = real(path);
    if (!target || target === "/" || isWithin(root, target)) continue;
    (statSync(target).isDirectory() ? hiddenDirs : hiddenFiles).push(target);
  }
  // A path inside a hidden folder is hidden with it; mounting on it too would make bubblewrap create
  // its mount point inside the folder's read-only tmpfs, which fails every command (a config folder
  // inside the data folder: --data-dir D with XDG_CONFIG_HOME=D/config).
  const outermost = (path: string) =>
    !hiddenDirs.some((dir) => dir !== path && isWithin(path, dir));
  return {
    mode: settings.mode,
    workspace: root,
    network: settings.network,
    tmpDirs,
    writable,
    hiddenDirs: [...new Set(hiddenDirs)].filter(outermost),
    hiddenFiles: hiddenFiles.filter(outermost),
    readOnly: [
      ...gitControlPaths(root, home),
      ...(settings.readOnly ?? [])
        .map((path) => real(expand(path, home, root)))
        .filter((path): path is string => path !== null && path !== root && isWithin(path, root)),
    ],
    runDir,
    resolverPaths: ["/run/systemd/resolve", "/run/resolvconf", "/run/NetworkManager"].filter(
      (path) => real(path) !== null,
    ),
    maxProcesses: settings.maxProcesses ?? 4096,
    tmpSizeBytes: (settings.tmpSizeMiB ?? DEFAULT_TMP_MIB) * 1024 * 1024,
  };
}

/**
 * What git executes or reads as configuration, outside any sandbox, the next time the user runs it,
 * wherever it is in the workspace: every git folder's (submodules' and worktrees' too) config and
 * hooks, `core.hooksPath` wherever it points (with the scripts husky's hooks run), and config files
 * included from there. A command may commit, branch and stash, but not plant a hook or an
 * `fsmonitor`/`core.hooksPath`/filter setting; what it adds elsewhere is disarmed afterwards.
 */
function gitControlPaths(root: string, home: string | undefined): string[] {
  const found = gitControlFiles(root, { HOME: home, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME });
  const own = found.gitDirs[0];
  if (!own) return [];
  const hooks = join(commonDirOf(own), "hooks");
  if (isWithin(hooks, root) && !existsSync(hooks)) {
    try {
      mkdirSync(hooks);
    } catch {
      // Without it a command could create hooks; the mount below is then skipped and the guard asks.
    }
  }
  const paths = [
    ...found.gitDirs.flatMap((dir) => [join(dir, "config"), join(dir, "config.worktree")]),
    ...found.hookDirs,
    ...found.sourced,
    ...found.configs,
  ];
  return [...new Set(paths)].filter(
    (path) => isWithin(path, root) && path !== root && existsSync(path),
  );
}
