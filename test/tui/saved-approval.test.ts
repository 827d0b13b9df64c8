// "Always allow this in this project": in the real chat, p on a command's approval saves a precise
// rule to the user's config under the project (other settings and the file's indentation kept), says
// where and how to remove it, and a new session runs the command without asking.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { runNex } from "../support/cli.ts";
import { keys } from "../support/pty.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";
import { answerPrompt } from "./tui-harness.ts";

const userConfig = `{
    "maxTurns": 40,
    "commands": {
        "deny": ["rm"]
    }
}
`;

test("p saves a precise rule for the project; a new session runs the command without asking", async (t) => {
  let configPath = "";
  const nex = await startNexTui(
    [
      openaiToolCall({ name: "bash", args: { command: "touch stamp.txt" } }),
      openaiText("Stamped."),
      openaiToolCall({ name: "bash", args: { command: "touch stamp.txt" } }),
      openaiText("Stamped again."),
    ],
    {
      seed: async ({ dataDir }) => {
        configPath = join(dirname(dirname(dataDir)), "config", "nex", "config.json");
        mkdirSync(dirname(configPath), { recursive: true });
        writeFileSync(configPath, userConfig);
      },
    },
  );
  t.after(() => nex.close());
  nex.pty.write(`stamp it${keys.enter}`);
  const prompt = await nex.pty.waitFor("Allow bash?");
  assert.match(prompt, /p yes, always in this project/);
  await answerPrompt(nex.pty, "p");
  await nex.pty.waitFor("Stamped.");
  const said = nex.pty.history().replace(/\s+/g, " ");
  assert.match(
    said,
    /Saved "touch stamp\.txt" to .*config\.json \(projects → ".*ws" → commands\.allow\)/,
  );
  assert.match(said, /To stop it, delete the rule there\./);
  assert.ok(existsSync(join(nex.workspace, "stamp.txt")));

  const text = readFileSync(configPath, "utf8");
  const saved = JSON.parse(text);
  assert.equal(saved.maxTurns, 40, "other settings kept");
  assert.deepEqual(saved.commands, { deny: ["rm"] }, "the user's own rules untouched");
  assert.deepEqual(saved.projects[nex.workspace], { commands: { allow: ["touch stamp.txt"] } });
  assert.match(text, /^ {4}"maxTurns": 40,$/m, "the file's indentation kept");

  // A new session (headless: a question there is a refusal) runs it unasked.
  rmSync(join(nex.workspace, "stamp.txt"));
  const run = await runNex(
    ["run", "--base-url", `${nex.stub.url}/v1`, "--model", "m", "stamp it again"],
    {
      cwd: nex.workspace,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: nex.dir,
        OPENAI_API_KEY: "test",
        XDG_DATA_HOME: join(nex.dir, "data"),
        XDG_CONFIG_HOME: join(nex.dir, "config"),
      },
    },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /Stamped again\./);
  assert.ok(existsSync(join(nex.workspace, "stamp.txt")), "the saved rule let it run");
});

test("a saved rule is never a blanket one: a command with no subcommand is allowed for the session only", async (t) => {
  let configPath = "";
  const nex = await startNexTui(
    [openaiToolCall({ name: "bash", args: { command: "make" } }), openaiText("Made.")],
    {
      seed: async ({ dataDir }) => {
        configPath = join(dirname(dirname(dataDir)), "config", "nex", "config.json");
        mkdirSync(dirname(configPath), { recursive: true });
        writeFileSync(configPath, userConfig);
      },
    },
  );
  t.after(() => nex.close());
  nex.pty.write(`build${keys.enter}`);
  await nex.pty.waitFor("Allow bash?");
  await answerPrompt(nex.pty, "p");
  await nex.pty.waitFor("Made.");
  assert.match(
    nex.pty.history().replace(/\s+/g, " "),
    /Allowed for this session only, not saved for the project: a rule is a command and its subcommand/,
  );
  assert.equal(readFileSync(configPath, "utf8"), userConfig, "the config is untouched");
});

test("a pipeline of a command and a reader: p saves the command's rule, and the same command with another reader runs unasked", async (t) => {
  const nex = await startNexTui(
    [
      openaiToolCall({ name: "bash", args: { command: "npm test | tail -5" } }),
      openaiText("Tested once."),
      openaiToolCall({ name: "bash", args: { command: "npm test 2>&1 | tail -3" } }),
      openaiText("Tested twice."),
    ],
    { cols: 80, rows: 30 },
  );
  t.after(() => nex.close());
  nex.pty.write(`run the tests${keys.enter}`);
  const prompt = await nex.pty.waitFor("Allow bash?");
  assert.match(prompt, /p yes, always in this project/);
  await answerPrompt(nex.pty, "p");
  await nex.pty.waitFor("Tested once.");
  assert.match(nex.pty.history().replace(/\s+/g, " "), /Saved "npm test" to .*config\.json/);
  await nex.pty.waitFor("Ask nex");
  nex.pty.write(`again${keys.enter}`);
  // Had it asked, the turn would wait on the question and never reach its answer.
  await nex.pty.waitFor("Tested twice.");
  assert.doesNotMatch(nex.pty.screen(), /Allow bash\?/);
});
