// Runs the TUI over a ScriptedSession in this process's terminal:
// `node run-scripted.ts [--guard-ms=N] <scenario> [log] [resumeLine]`.
import { runTui } from "../../src/tui/index.ts";
import { scenarios } from "./scenarios.ts";
import { ScriptedSession } from "./scripted-session.ts";

const argv = process.argv.slice(2);
const guardFlag = argv.find((arg) => arg.startsWith("--guard-ms="));
const [name = "write", logPath, resumeLine] = argv.filter((arg) => arg !== guardFlag);
const script = scenarios[name];
if (!script) {
  process.stderr.write(`unknown scenario ${name}; known: ${Object.keys(scenarios).join(", ")}\n`);
  process.exit(2);
}
const session = new ScriptedSession({ script, ...(logPath ? { logPath } : {}) });
process.exitCode = await runTui(session, {
  ...(resumeLine ? { resumeLine } : {}),
  ...(guardFlag ? { answerGuardMs: Number(guardFlag.slice("--guard-ms=".length)) } : {}),
});
