// Prints the final screen of each closing-note scenario: `node test/tui/capture-screens.ts [--scripted]`.
// Through the real `nex chat` against the stub endpoint; with --scripted, over the scripted session instead.
import { keys } from "../support/pty.ts";
import { cliScenarios, type ScenarioEnd } from "./cli-scenarios.ts";
import { answerPrompt, idleShown, startScripted, typeAndSubmit } from "./tui-harness.ts";

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
    await pty.waitFor("Recovered after the rate limit.");
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
    await answerPrompt(pty, "n");
    await pty.waitFor("Why not?");
    pty.write("keep my file");
    await pty.waitFor("keep my file");
    pty.write(keys.enter);
    await pty.waitFor("Understood, I left keep.txt alone.");
    return pty.waitUntil(idle, "idle");
  }),
};

const useScripted = process.argv.includes("--scripted");
const captures: Record<string, Capture> = useScripted
  ? scriptedCaptures
  : Object.fromEntries(Object.entries(cliScenarios).map(([name, run]) => [name, real(run)]));

console.log(
  useScripted
    ? "Final screens of the TUI over the scripted session (100x30 pseudo-terminal)."
    : "Final screens of the real `nex chat` against the stub endpoint on 127.0.0.1 (100x30 pseudo-terminal).",
);
for (const [name, capture] of Object.entries(captures)) {
  const { screen, close } = await capture();
  await close();
  const trimmed = screen.replace(/\n+$/, "");
  console.log(`\n===== ${name} =====\n${trimmed}\n===== end ${name} =====`);
}
