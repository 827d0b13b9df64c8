// The scenarios of the closing notes, run through the real `nex chat` against the stub endpoint.
// The tests assert on them; capture-screens.ts prints their final screens.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { keys } from "../support/pty.ts";
import { openaiText, openaiToolCall, status } from "../support/stub-endpoint.ts";
import { type NexTui, startNexTui } from "./cli-harness.ts";
import { answerPrompt, idleShown, spinnerShown, typeAndSubmit } from "./tui-harness.ts";

/** A scenario's end: the running nex (close it) and the final screen. */
export interface ScenarioEnd {
  nex: NexTui;
  screen: string;
}

export const contextMessage =
  "This model's maximum context length is 32768 tokens. However, you requested 250112 tokens.";

async function write(): Promise<ScenarioEnd> {
  const nex = await startNexTui([
    openaiToolCall({
      name: "write_file",
      args: { path: "hello.txt", content: "Hello, world!\nSecond line.\n" },
      text: "Creating it.",
    }),
    openaiText("Done: hello.txt holds the greeting."),
  ]);
  await typeAndSubmit(nex.pty, "create hello.txt");
  await nex.pty.waitFor("Allow write_file?");
  await answerPrompt(nex.pty, "y");
  await nex.pty.waitFor("Done: hello.txt holds the greeting.");
  return { nex, screen: await nex.pty.waitUntil(idleShown, "idle prompt") };
}

async function storm400(): Promise<ScenarioEnd> {
  const body = { error: { message: contextMessage, type: "invalid_request_error" } };
  const nex = await startNexTui([], { after: status(400, { body }) });
  await typeAndSubmit(nex.pty, "hello");
  await nex.pty.waitFor("400");
  const screen = await nex.pty.waitUntil(idleShown, "idle prompt");
  return { nex, screen };
}

async function retry429(): Promise<ScenarioEnd> {
  const nex = await startNexTui([
    status(429, { headers: { "retry-after": "2" }, body: { error: { message: "slow down" } } }),
    openaiText("Recovered after the rate limit."),
  ]);
  await typeAndSubmit(nex.pty, "hello");
  await nex.pty.waitFor(/429 from 127\.0\.0\.1:\d+, retry 1\/3 in [12]s/);
  await nex.pty.waitFor("Recovered after the rate limit.");
  return { nex, screen: await nex.pty.waitUntil(idleShown, "idle prompt") };
}

/** Ctrl-C during a long stream; the screen is the first one without the spinner. */
async function interrupt(): Promise<ScenarioEnd> {
  const lines = Array.from({ length: 400 }, (_, i) => `Line ${i + 1} of a very long answer.\n`);
  const nex = await startNexTui([openaiText(lines.join(""), { chunkSize: 12, delayMs: 40 })]);
  await typeAndSubmit(nex.pty, "write a lot");
  await nex.pty.waitFor("Line 3 of a very long answer.");
  if (!spinnerShown(nex.pty.screen())) throw new Error("no spinner while streaming");
  nex.pty.write(keys.ctrlC);
  await nex.pty.waitUntil((s) => !spinnerShown(s), "spinner off");
  return { nex, screen: await nex.pty.waitFor("Interrupted") };
}

async function permissionDenied(): Promise<ScenarioEnd> {
  const nex = await startNexTui(
    [
      openaiToolCall({ name: "write_file", args: { path: "keep.txt", content: "overwritten\n" } }),
      openaiText("Understood, I left keep.txt alone."),
    ],
    { files: { "keep.txt": "original\n" } },
  );
  await typeAndSubmit(nex.pty, "overwrite keep.txt");
  await nex.pty.waitFor("Allow write_file?");
  await answerPrompt(nex.pty, "n");
  await nex.pty.waitFor("Why not?");
  nex.pty.write("keep my file");
  await nex.pty.waitFor("keep my file");
  nex.pty.write(keys.enter);
  await nex.pty.waitFor("Understood, I left keep.txt alone.");
  return { nex, screen: await nex.pty.waitUntil(idleShown, "idle prompt") };
}

async function hazardWarning(): Promise<ScenarioEnd> {
  const nex = await startNexTui(
    [
      openaiToolCall({ name: "bash", args: { command: "rm -rf ../notes" } }),
      openaiText("Understood, ../notes stays."),
    ],
    {
      seed: async ({ workspace }) => {
        mkdirSync(join(workspace, "..", "notes"));
        writeFileSync(join(workspace, "..", "notes", "ideas.md"), "my ideas\n");
      },
    },
  );
  await typeAndSubmit(nex.pty, "clean up the notes");
  await nex.pty.waitFor("Allow bash?");
  const prompt = nex.pty.screen();
  await answerPrompt(nex.pty, "n");
  await nex.pty.waitFor("Why not?");
  nex.pty.write(keys.enter);
  await nex.pty.waitFor("Understood, ../notes stays.");
  await nex.pty.waitUntil(idleShown, "idle prompt");
  return { nex, screen: prompt };
}

/** The scenarios by name, in the order of the closing notes. */
export const cliScenarios = {
  write,
  storm400,
  retry429,
  interrupt,
  permissionDenied,
  hazardWarning,
};
