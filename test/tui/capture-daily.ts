// Prints screens of the daily-chat features for a closing note: `node test/tui/capture-daily.ts`.
// Through the real `nex chat` against the stub endpoint.
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { makeSandbox, runNex } from "../support/cli.ts";
import { keys, spawnPty } from "../support/pty.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";
import { idleShown } from "./tui-harness.ts";

const nexBin = resolve(import.meta.dirname, "..", "..", "bin", "nex.js");
const trim = (screen: string) => screen.replace(/\n{3,}/g, "\n\n").trimEnd();

async function markdown(): Promise<string> {
  const answer = [
    "## What changed",
    "",
    "The parser now **rejects** trailing commas, and `lex()` reports the *column*.",
    "",
    "| file | lines |",
    "| --- | --- |",
    "| src/lexer.ts | +12 −3 |",
    "| src/parser.ts | +4 −1 |",
    "",
    "```ts",
    "export function lex(input: string): Token[] {",
    "  return scan(input, { column: true });",
    "}",
    "```",
    "",
    "> Run `npm test` before you push.",
  ].join("\n");
  const nex = await startNexTui([openaiText(answer)], { cols: 80, rows: 30 });
  nex.pty.write(`what changed?${keys.enter}`);
  await nex.pty.waitFor("Run");
  const screen = await nex.pty.waitUntil(idleShown, "idle");
  await nex.close();
  return screen;
}

async function approvalWithDiff(): Promise<string> {
  const nex = await startNexTui(
    [
      openaiToolCall({ name: "read_file", args: { path: "app.ts" } }),
      openaiToolCall({
        name: "edit_file",
        args: {
          path: "app.ts",
          old_string: "const port = 3000;",
          new_string: "const port = Number(process.env.PORT ?? 3000);",
        },
      }),
      openaiText("Done."),
    ],
    {
      cols: 80,
      rows: 30,
      files: {
        "app.ts":
          "import http from 'node:http';\nconst port = 3000;\nhttp.createServer().listen(port);\n",
      },
    },
  );
  nex.pty.write(`read the port from PORT${keys.enter}`);
  const screen = await nex.pty.waitFor("Allow edit_file?");
  await nex.close();
  return screen;
}

async function picker(): Promise<string> {
  const box = makeSandbox();
  const stub = await startStubEndpoint({ handler: () => openaiText("Done.") });
  const endpoint = ["--base-url", `${stub.url}/v1`, "--model", "m"];
  for (const prompt of ["fix the parser", "write the docs for the lexer"])
    await runNex(["run", ...endpoint, prompt], { cwd: box.workspace, env: box.env });
  const pty = spawnPty(process.execPath, [nexBin, "resume", ...endpoint], {
    cols: 80,
    rows: 20,
    cwd: box.workspace,
    env: { ...box.env, TERM: "xterm-256color", OPENAI_API_KEY: "test" },
  });
  const screen = await pty.waitFor("Resume a session");
  pty.kill();
  await stub.close();
  return screen;
}

async function typingWhileWorking(): Promise<string> {
  const nex = await startNexTui(
    [
      openaiToolCall({
        name: "bash",
        args: {
          command:
            "for i in 1 2 3; do echo test $i passed; done; while [ ! -f go ]; do sleep 0.05; done",
        },
      }),
      openaiText("ok"),
    ],
    { args: ["--yes"], cols: 80, rows: 24 },
  );
  nex.pty.write(`run the tests${keys.enter}`);
  await nex.pty.waitFor("test 3 passed");
  nex.pty.write(`then update the changelog${keys.enter}`);
  await nex.pty.waitFor("queued 1 ›");
  nex.pty.write(`skip the slow suite${keys.altEnter}`);
  const screen = await nex.pty.waitFor("steer ›");
  writeFileSync(join(nex.workspace, "go"), "");
  await nex.close();
  return screen;
}

const captures: Record<string, () => Promise<string>> = {
  markdown,
  "approval with a diff": approvalWithDiff,
  "session picker": picker,
  "typing while the model works (live output, queue, steering)": typingWhileWorking,
};
for (const [name, capture] of Object.entries(captures)) {
  process.stdout.write(`\n===== ${name} =====\n${trim(await capture())}\n`);
}
