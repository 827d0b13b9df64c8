// The sandbox is the user's consent, so a repository cannot widen it: a `sandbox` section planted in a
// project's settings (hoping to add hosts, or the whole network) is ignored, and the user is told.
import { join } from "node:path";
import { readOwnFile } from "../../tools/index.ts";

/** Project files a repository could plant hoping nex reads its sandbox settings from them. */
const PROJECT_FILES = [
  ".nex/config.json",
  ".nex/settings.json",
  ".nex/settings.local.json",
  ".claude/settings.json",
  ".claude/settings.local.json",
];

// Settings files are small; a bigger one is not read whole.
const LIMIT = 256 * 1024;

/** What the project's sandbox section asked for, in words, or null when it asks nothing. */
function asked(sandbox: unknown): string | null {
  if (typeof sandbox !== "object" || sandbox === null) return null;
  const section = sandbox as Record<string, unknown>;
  const parts: string[] = [];
  if (Array.isArray(section.allowHosts) && section.allowHosts.length > 0)
    parts.push(
      `hosts ${section.allowHosts
        .slice(0, 5)
        .map((host) => JSON.stringify(String(host).slice(0, 80)))
        .join(", ")}${section.allowHosts.length > 5 ? ", …" : ""}`,
    );
  if (section.network !== undefined && section.network !== false) parts.push("the whole network");
  return parts.length > 0 ? parts.join(" and ") : null;
}

/**
 * A notice per project file whose `sandbox` section asks for network access: nex ignores it, since
 * only the user's own config and command line allow hosts.
 */
export function projectSandboxNotices(workspace: string): string[] {
  const notices: string[] = [];
  for (const name of PROJECT_FILES) {
    const read = readOwnFile(join(workspace, name), LIMIT);
    if (read.type !== "read" || read.truncated) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(read.text);
    } catch {
      continue;
    }
    const what =
      typeof parsed === "object" && parsed !== null
        ? asked((parsed as Record<string, unknown>).sandbox)
        : null;
    if (what)
      notices.push(
        `${name} in this project asks the sandbox for ${what}; a repository cannot widen the sandbox, so nex ignores it. To allow hosts, add them to sandbox.allowHosts in your own config (~/.config/nex/config.json) or pass --allow-host.`,
      );
  }
  return notices;
}
