// How one command runs confined: the policy as a bubblewrap command line (with a pids cgroup) or a
// Seatbelt profile, the notes on what the sandbox blocked, and git's plants disarmed afterwards.
// Loaded with the first command: a session that runs none never loads it.
import { tmpdir } from "node:os";
import { LIFELINE_FD, STATUS_FD } from "../shell/index.ts";
import type { SandboxHost } from "./availability.ts";
import { sandboxNotes } from "./blocked.ts";
import { buildPolicy, type SandboxSettings } from "./build-policy.ts";
import { bwrapArgs } from "./bwrap.ts";
import { disarmGitPlants, gitRunnables } from "./git-plants.ts";
import { networkMode } from "./network-mode.ts";
import type { Launch, SandboxState } from "./policy.ts";
import { createProcessCap } from "./process-limit.ts";
import { seatbeltProfile } from "./seatbelt.ts";
import { setidFilterFile } from "./setid-filter.ts";

/** The descriptor on which bubblewrap reads the seccomp filter (after status and lifeline). */
const SECCOMP_FD = 5;

/** The launch of `command` in `cwd` under an active sandbox. */
export async function confinedLaunch(
  command: string,
  cwd: string,
  workspace: string,
  settings: SandboxSettings & { mode: "read-only" | "workspace-write" },
  state: SandboxState & { type: "active" },
  host: SandboxHost & { home: string | undefined },
): Promise<Launch> {
  const policy = buildPolicy(workspace, settings, host.home, state.backend);
  const network = networkMode(settings, state.backend);
  // The proxy of this command alone, so what it refused is told with this command's result.
  const filter =
    network.type === "filtered"
      ? await (await import("./network-proxy/index.ts")).openNetworkFilter({
          allowHosts: network.hosts,
          // Without the runtime's guard every address counts as private: only hosts listed by name pass.
          addressKind: settings.addressKind ?? (() => "unchecked"),
          ...(settings.resolveHost ? { resolve: settings.resolveHost } : {}),
          node: process.execPath,
          lifelineFd: LIFELINE_FD,
        })
      : null;
  const notes = (output: string) => [
    ...sandboxNotes(output, policy, cwd, filter !== null),
    ...(filter?.notes() ?? []),
  ];
  // A repository that existed before has its hooks and config mounted read-only already.
  // What git would run of the repository's choosing, before the command: afterwards, whatever the
  // command added there (a hook, an fsmonitor, a `commondir` or `config.worktree` naming new
  // ones, a swapped `.git`) is disarmed, since git would run it later outside any sandbox.
  const gitBefore =
    policy.mode === "read-only"
      ? null
      : gitRunnables(policy.workspace, { PATH: host.path, HOME: host.home });
  const after = (env: Record<string, string | undefined>) => {
    if (gitBefore === null) return [];
    const disarmed = disarmGitPlants(policy.workspace, gitBefore, env);
    return disarmed.length === 0
      ? []
      : [
          `The command changed what git runs (hooks or settings git would run later, outside the sandbox); nex disarmed them: ${disarmed.join(", ")}.`,
        ];
  };
  if (state.backend === "seatbelt") {
    const profile = seatbeltProfile(policy, tmpdir());
    return {
      file: "/usr/bin/sandbox-exec",
      args: ["-p", profile, "bash", "-c", command],
      statusFd: false,
      lifeline: false,
      contained: false,
      notes,
      after,
      stop: () => {},
      release: () => {},
    };
  }
  const bwrap = [
    "--json-status-fd",
    String(STATUS_FD),
    ...bwrapArgs(policy, command, cwd, host.uid === 0, filter?.mount, SECCOMP_FD),
  ];
  const closeFilter = () => filter?.close();
  // A shell opens the setid filter for bubblewrap's `--seccomp`, and joins the pids cgroup (the
  // kernel exempts root from `ulimit -u`; the cgroup bounds root's commands too), then becomes
  // bubblewrap, so nothing runs outside the cgroup.
  const setid = setidFilterFile();
  const cap = createProcessCap(policy.maxProcesses);
  const open = `exec ${SECCOMP_FD}<"$1" && shift && `;
  if (!cap)
    return {
      file: "sh",
      args: ["-c", `${open}exec "$@"`, "nex-sandbox", setid, "bwrap", ...bwrap],
      statusFd: true,
      lifeline: true,
      contained: true,
      notes,
      after,
      stop: closeFilter,
      release: closeFilter,
    };
  return {
    file: "sh",
    args: [
      "-c",
      `${open}echo $$ > "$1/cgroup.procs" && shift && exec "$@"`,
      "nex-sandbox",
      setid,
      cap.dir,
      "bwrap",
      ...bwrap,
    ],
    statusFd: true,
    lifeline: true,
    contained: true,
    notes,
    after,
    stop: () => {
      cap.kill();
      closeFilter();
    },
    release: () => {
      cap.release();
      closeFilter();
    },
  };
}
