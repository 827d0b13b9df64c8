import { tmpdir } from "node:os";
import { type SandboxHost, sandboxState } from "./availability.ts";
import { sandboxNotes } from "./blocked.ts";
import { buildPolicy, type SandboxSettings } from "./build-policy.ts";
import { bwrapArgs } from "./bwrap.ts";
import { disarmGitPlants, gitRunnables } from "./git-plants.ts";

export { gitHooksDir, gitSettings } from "./git-plants.ts";

import { type CommandSandbox, describeSandbox, type Launch, type SandboxState } from "./policy.ts";
import { createProcessCap } from "./process-limit.ts";
import { seatbeltProfile } from "./seatbelt.ts";

export type { SandboxSettings } from "./build-policy.ts";
export {
  type CommandSandbox,
  describeSandbox,
  type Launch,
  type SandboxMode,
  type SandboxState,
} from "./policy.ts";
export { probeSandbox, type SandboxProbe } from "./probe.ts";

const plain = (command: string): Launch => ({
  file: "bash",
  args: ["-c", command],
  statusFd: false,
  contained: false,
  notes: () => [],
  after: () => [],
  stop: () => {},
  release: () => {},
});

/** Builds the sandbox for commands in `workspace`, checking once whether it can work here. */
export function createCommandSandbox(
  workspace: string,
  settings: SandboxSettings,
  host: SandboxHost & { home: string | undefined },
): CommandSandbox {
  let state: SandboxState = settings.mode === "off" ? { type: "off" } : sandboxState(host);
  return {
    mode: settings.mode,
    network: settings.network,
    state: () => state,
    unavailable: () =>
      state.type === "unavailable"
        ? `the sandbox (${settings.mode}) cannot start here: ${state.reason}; to fix: ${state.fix}`
        : null,
    describe: () => describeSandbox(settings.mode, settings.network, state),
    markBroken(reason) {
      state = {
        type: "unavailable",
        reason,
        fix: 'check that bubblewrap can run here (`bwrap --ro-bind / / true`), or set "sandbox": {"mode": "off"} in the config (or --sandbox off)',
      };
    },
    launch(command, cwd) {
      if (state.type !== "active" || settings.mode === "off") return plain(command);
      const policy = buildPolicy(workspace, { ...settings, mode: settings.mode }, host.home);
      const notes = (output: string) => sandboxNotes(output, policy, cwd);
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
          contained: false,
          notes,
          after,
          stop: () => {},
          release: () => {},
        };
      }
      const bwrap = ["--json-status-fd", "3", ...bwrapArgs(policy, command, cwd, host.uid === 0)];
      // The kernel exempts root from `ulimit -u`; a pids cgroup bounds root's commands too. The
      // shell joins the cgroup, then becomes bubblewrap, so nothing runs outside it.
      const cap = createProcessCap(policy.maxProcesses);
      if (!cap)
        return {
          file: "bwrap",
          args: bwrap,
          statusFd: true,
          contained: true,
          notes,
          after,
          stop: () => {},
          release: () => {},
        };
      return {
        file: "sh",
        args: [
          "-c",
          'echo $$ > "$1/cgroup.procs" && shift && exec "$@"',
          "nex-cap",
          cap.dir,
          "bwrap",
          ...bwrap,
        ],
        statusFd: true,
        contained: true,
        notes,
        after,
        stop: () => cap.kill(),
        release: () => cap.release(),
      };
    },
  };
}
