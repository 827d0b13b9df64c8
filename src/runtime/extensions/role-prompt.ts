// `--role NAME`: a role's instructions (a coordinator that plans and delegates, a reviewer) added to
// the system prompt from `roles/NAME.md`, the project's (`.nex/roles/`) before the user's
// (`~/.config/nex/roles/`). A role file is prompt text and nothing else: it grants no permission, no
// tool and no approval, whoever wrote it (docs/trust-model.md).
import { join } from "node:path";
import { ConfigError } from "../config/index.ts";
import { type ExtensionDir, readExtensionFile } from "./locations.ts";

/** Most bytes of a role: a page of instructions, not a manual. */
const MAX_ROLE_BYTES = 32 * 1024;

/** The role's prompt text, or a ConfigError naming where it was looked for. */
export async function rolePrompt(
  name: string,
  workspace: string,
  env: Record<string, string | undefined>,
): Promise<{ text: string; from: string }> {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name))
    throw new ConfigError(
      `--role takes a name of letters, digits, ".", "_" and "-" (the file roles/NAME.md), not "${name}".`,
    );
  const home = env.HOME || (await import("node:os")).homedir();
  const config = env.XDG_CONFIG_HOME || join(home, ".config");
  const dirs: ExtensionDir[] = [
    { path: join(workspace, ".nex", "roles"), scope: "project", label: ".nex/roles" },
    { path: join(config, "nex", "roles"), scope: "user", label: "~/.config/nex/roles" },
  ];
  for (const dir of dirs) {
    const read = await readExtensionFile(
      dir,
      join(dir.path, `${name}.md`),
      MAX_ROLE_BYTES,
      workspace,
    );
    if (read.type === "missing") continue;
    if (read.type === "refused")
      throw new ConfigError(`The role ${dir.label}/${name}.md was not read: ${read.reason}.`);
    if (read.truncated)
      throw new ConfigError(
        `The role ${dir.label}/${name}.md is larger than ${MAX_ROLE_BYTES / 1024} KiB; keep a role to a page of instructions.`,
      );
    if (read.text.trim() === "")
      throw new ConfigError(
        `The role ${dir.label}/${name}.md is empty; write the role's instructions in it.`,
      );
    return { text: read.text.trim(), from: `${dir.label}/${name}.md` };
  }
  throw new ConfigError(
    `No role "${name}": neither .nex/roles/${name}.md in the workspace nor ${join(config, "nex", "roles", `${name}.md`)} exists. Write the role's instructions in one of them.`,
  );
}
