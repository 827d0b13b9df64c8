// Prints the final screen of each closing-note scenario: `node test/tui/capture-screens.ts [--scripted]`.
// Through the real `nex chat` against the stub endpoint; while the CLI does not start the TUI yet, through the
// real runtime without the CLI where no tool is needed, else over the scripted session; each screen says which.
// --scripted uses the scripted session for all.
import { keys } from "../support/pty.ts";
import { cliSkipReason } from "./cli-harness.ts";
import { cliScenarios, type ScenarioEnd } from "./cli-scenarios.ts";
import { idleShown, startScripted, typeAndSubmit } from "./tui-harness.ts";

type Capture = () => Promise<{ screen: string; close: () => unknown }>;

function real(run: () => Promise<ScenarioEnd>): Capture {
  return async () => {
    const { nex, screen } = await run();
    return { screen, close: () => nex.close() };
  };
}

function scripted(
  name: string,
  drive: (tui: Awaited<ReturnType<typeof startScripted>>) => Promise<string>,
): Capture {
  return async () => {
    const tui = await startScripted(name);
    return { screen: await drive(tui), close: () => tui.pty.kill() };
  };
}

const idle = idleShown;

const scriptedCaptures: Record<string, Capture> = {
  write: scripted("write", async ({ pty }) => {
    await typeAndSubmit(pty, "create hello.txt");
    await pty.waitFor("Done: hello.txt");
    return pty.waitUntil(idle, "idle");
  }),
  storm400: scripted("storm400", async ({ pty }) => {
    await typeAndSubmit(pty, "hello");
    await pty.waitFor("Request failed: 400");
    return pty.waitUntil(idle, "idle");
  }),
  retry429: scripted("retry429", async ({ pty }) => {
    await typeAndSubmit(pty, "hello");
    await pty.waitFor("Recovered after the rate limit.", 10_000);
    return pty.waitUntil(idle, "idle");
  }),
  interrupt: scripted("endless", async ({ pty }) => {
    await typeAndSubmit(pty, "write a lot");
    await pty.waitFor("Line 3 of");
    pty.write(keys.ctrlC);
    return pty.waitFor("Interrupted");
  }),
  permissionDenied: scripted("permission", async ({ pty }) => {
    await typeAndSubmit(pty, "overwrite keep.txt");
    await pty.waitFor("Allow write_file?");
    pty.write("n");
    await pty.waitFor("Why not?");
    pty.write("keep my file");
    await pty.waitFor("keep my file");
    pty.write(keys.enter);
    await pty.waitFor("Understood, I left keep.txt alone.");
    return pty.waitUntil(idle, "idle");
  }),
};

const skip = cliSkipReason();
const forceScripted = process.argv.includes("--scripted");
const runtimeScenarios = {
  storm400: cliScenarios.storm400,
  retry429: cliScenarios.retry429,
  interrupt: cliScenarios.interrupt,
};

/** Each scenario through the most real path available: the CLI, else the runtime, else the scripted session. */
function pick(name: keyof typeof cliScenarios): { how: string; capture: Capture } {
  if (!forceScripted && skip === false)
    return { how: "real nex chat", capture: real(cliScenarios[name]) };
  const viaRuntime = name in runtimeScenarios && !forceScripted;
  if (viaRuntime) {
    const run = runtimeScenarios[name as keyof typeof runtimeScenarios];
    return { how: "real NexSession + OpenAI client, no CLI", capture: real(() => run("runtime")) };
  }
  return { how: "scripted session", capture: scriptedCaptures[name] as Capture };
}

console.log("Final screens, 100x30 pseudo-terminal, stub endpoint on 127.0.0.1.");
if (skip) console.log(`Real CLI not used: ${skip}.`);
for (const name of Object.keys(cliScenarios) as (keyof typeof cliScenarios)[]) {
  const { how, capture } = pick(name);
  const { screen, close } = await capture();
  await close();
  const trimmed = screen.replace(/\n+$/, "");
  console.log(`\n===== ${name} (${how}) =====\n${trimmed}\n===== end ${name} =====`);
}
