import { type SandboxHost, sandboxState } from "./availability.ts";
import type { SandboxSettings } from "./build-policy.ts";
import { describeNetwork, networkMode } from "./network-mode.ts";

import { type CommandSandbox, describeSandbox, type Launch, type SandboxState } from "./policy.ts";
import type { SandboxProbe } from "./probe.ts";

export type { SandboxSettings } from "./build-policy.ts";
export { describeNetwork, type NetworkMode, networkMode } from "./network-mode.ts";
export { entryProblem as allowHostsProblem, HOST_PRESETS } from "./network-proxy/index.ts";
export {
  type CommandSandbox,
  describeSandbox,
  type Launch,
  type SandboxMode,
  type SandboxState,
} from "./policy.ts";
export type { SandboxProbe } from "./probe.ts";

/**
 * What git reads for a workspace (its hooks folder, its settings), as git itself reads it; loaded
 * when a permission check first asks, so a run that calls no tool never loads git's readers.
 */
export function loadGitReaders(): Promise<GitReaders> {
  // Asked at every file edit's permission check: the module is imported once, not once per edit.
  gitReaders ??= import("./git-plants.ts").then(({ gitHooksDir, gitSettings }) => ({
    gitHooksDir,
    gitSettings,
  }));
  return gitReaders;
}

type GitReaders = Pick<typeof import("./git-plants.ts"), "gitHooksDir" | "gitSettings">;
let gitReaders: Promise<GitReaders> | null = null;

/** Starts `true` under the sandbox once (`nex doctor`); see `probe.ts`. */
export async function probeSandbox(
  sandbox: CommandSandbox,
  workspace: string,
  env: Record<string, string | undefined>,
): Promise<SandboxProbe> {
  return (await import("./probe.ts")).probeSandbox(sandbox, workspace, env);
}

const plain = (command: string): Launch => ({
  file: "bash",
  args: ["-c", command],
  statusFd: false,
  lifeline: false,
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
    get allowHosts() {
      const network = networkMode(settings, state.type === "active" ? state.backend : null);
      return network.type === "filtered" ? network.hosts : [];
    },
    state: () => state,
    unavailable: () =>
      state.type === "unavailable"
        ? `the sandbox (${settings.mode}) cannot start here: ${state.reason}; to fix: ${state.fix}`
        : null,
    describe: () =>
      describeSandbox(
        settings.mode,
        describeNetwork(networkMode(settings, state.type === "active" ? state.backend : null)),
        state,
      ),
    markBroken(reason) {
      state = {
        type: "unavailable",
        reason,
        fix: 'check that bubblewrap can run here (`bwrap --ro-bind / / true`), or set "sandbox": {"mode": "off"} in the config (or --sandbox off)',
      };
    },
    async launch(command, cwd) {
      if (state.type !== "active" || settings.mode === "off") return plain(command);
      const { confinedLaunch } = await import("./launch.ts");
      return confinedLaunch(
        command,
        cwd,
        workspace,
        { ...settings, mode: settings.mode },
        state,
        host,
      );
    },
  };
}
