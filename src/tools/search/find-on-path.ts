import { access, constants, stat } from "node:fs/promises";
import { delimiter, join } from "node:path";

/** The executable file `name` in the first directory of PATH that holds one; null if none does. */
export async function findOnPath(
  name: string,
  env: Record<string, string | undefined>,
): Promise<string | null> {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      if ((await stat(candidate)).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return null;
}
