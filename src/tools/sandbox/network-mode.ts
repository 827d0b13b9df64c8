// What network a confined command has: none, all of it, or only the allowed hosts through nex's
// proxy (bubblewrap only: Seatbelt has no filter yet, so there the allowlist leaves the network off).
import type { SandboxSettings } from "./build-policy.ts";
import type { SandboxBackend } from "./policy.ts";

export type NetworkMode =
  | { type: "none"; unfiltered: boolean }
  | { type: "all" }
  | { type: "filtered"; hosts: readonly string[] };

/**
 * The network of commands under `backend`. `network: true` wins over an allowlist; an allowlist
 * where no filter can run leaves the network off (`unfiltered`), never on.
 */
export function networkMode(
  settings: Pick<SandboxSettings, "network" | "allowHosts">,
  backend: SandboxBackend | null,
): NetworkMode {
  if (settings.network) return { type: "all" };
  const hosts = settings.allowHosts ?? [];
  if (hosts.length === 0) return { type: "none", unfiltered: false };
  return backend === "bwrap" ? { type: "filtered", hosts } : { type: "none", unfiltered: true };
}

/** Words for the status line and `nex doctor`: "no network", "network only to npm, pypi". */
export function describeNetwork(mode: NetworkMode): string {
  switch (mode.type) {
    case "all":
      return "network allowed";
    case "filtered":
      return `network only to ${mode.hosts.join(", ")}, through nex's proxy`;
    case "none":
      return mode.unfiltered
        ? "no network (sandbox.allowHosts needs bubblewrap: this sandbox cannot filter by host)"
        : "no network";
  }
}
