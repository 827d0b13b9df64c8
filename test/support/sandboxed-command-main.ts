// Starts one sandboxed command the way nex does (the real sandbox launch and command runner), then
// kills itself outright (SIGKILL) after the given number of milliseconds, whatever stage the
// sandbox's start had reached. Arguments: workspace, marker, delay in ms.
import { createCommandSandbox } from "../../src/tools/sandbox/index.ts";
import { runBash } from "../../src/tools/shell/index.ts";

const [workspace = "", marker = "", delay = "0"] = process.argv.slice(2);
const sandbox = createCommandSandbox(
  workspace,
  { mode: "workspace-write", network: false },
  {
    platform: process.platform,
    path: process.env.PATH,
    uid: process.getuid?.() ?? 1000,
    home: process.env.HOME,
  },
);
const command = `exec -a ${marker} sleep 1000`;
const launch = await sandbox.launch(command, workspace);
// Unconfined, this would test nothing the test claims: say so and fail it.
if (!launch.contained) {
  console.error(`no sandbox here: ${sandbox.describe()}`);
  process.exit(2);
}
void runBash({
  command,
  cwd: workspace,
  env: process.env,
  timeoutMs: 600_000,
  killGraceMs: 500,
  outputCap: 4096,
  signal: new AbortController().signal,
  launch,
});
setTimeout(() => process.kill(process.pid, "SIGKILL"), Number(delay));
