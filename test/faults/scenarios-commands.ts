// What the model asks to run: commands whose damage undo could not repair are not run on --yes.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { outside } from "./fixtures.ts";
import { exitCode, type FaultScenario, fileIs, stderrSays, told } from "./scenario.ts";

const wire = "openai";

export const commandScenarios: FaultScenario[] = [
  {
    name: "a command on --yes that deletes outside the workspace",
    wire,
    expect:
      "not run even on --yes (undo could not restore it); the outside file keeps its bytes; the model is told; exit 4 (nothing changed)",
    setup: (box) => {
      mkdirSync(outside(box), { recursive: true });
      writeFileSync(join(outside(box), "thesis.tex"), "years of work\n");
    },
    handler: (_request, index) =>
      index === 0
        ? openaiToolCall({ name: "bash", args: { command: "ls && rm -rf ../outside" } })
        : openaiText("ok"),
    checks: [
      fileIs("../outside/thesis.tex", "years of work\n"),
      told(/outside the workspace, which undo cannot restore/),
      // Nothing the model tried was done: the run says so and does not exit 0.
      exitCode(4),
      stderrSays(/no changes were made .*1 action was refused/),
    ],
  },
  {
    name: "a command on --yes that deletes ignored files (git clean -fdx)",
    wire,
    expect:
      "not run: .env is ignored, so no snapshot holds it; the model is told; exit 4 (nothing changed)",
    files: { ".gitignore": ".env\n", ".env": "API_TOKEN=only-copy\n" },
    setup: (box) => {
      // A real repository, so that the command would delete .env if nex ran it.
      spawnSync("git", ["init", "-q"], { cwd: box.workspace });
    },
    scripts: [
      openaiToolCall({ name: "bash", args: { command: "git clean -fdx" } }),
      openaiText("ok"),
    ],
    checks: [fileIs(".env", "API_TOKEN=only-copy\n"), told(/ignored files/), exitCode(4)],
  },
];
