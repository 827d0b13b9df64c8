// "Always in this project" rules are keyed by the workspace's real path, like every grant: a link to
// the project sees them, and a path saved as given before still counts.
import assert from "node:assert/strict";
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { resolveConfig } from "../../src/runtime/config/config.ts";
import { scratchDir } from "../support/scratch-dir.ts";

test("rules saved under the real path apply when the project is opened through a link", () => {
  const base = realpathSync(scratchDir("nex-rules-"));
  const project = join(base, "project");
  mkdirSync(project);
  symlinkSync(project, join(base, "link"));
  mkdirSync(join(base, "config", "nex"), { recursive: true });
  writeFileSync(
    join(base, "config", "nex", "config.json"),
    JSON.stringify({
      projects: {
        [project]: { commands: { allow: ["npm test"] } },
        [join(base, "link")]: { commands: { allow: ["make lint"] } },
      },
    }),
  );
  const env = { HOME: base, XDG_CONFIG_HOME: join(base, "config") };
  const viaLink = resolveConfig({ cwd: join(base, "link") }, env, base);
  assert.deepEqual(viaLink.commands.allow, ["npm test", "make lint"]);
  const direct = resolveConfig({ cwd: project }, env, base);
  assert.deepEqual(direct.commands.allow, ["npm test"]);
});
