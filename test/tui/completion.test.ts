// Completion as you type in the real chat: `/` lists commands (the user's own from .claude/commands
// with their descriptions), `@` lists workspace paths; Tab completes, Esc hides the list, Enter
// sends what is typed.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { keys } from "../support/pty.ts";
import { openaiText } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";

test("/ lists commands with descriptions, a .claude/commands one included; Tab completes the one that matches", async (t) => {
  const nex = await startNexTui([], {
    cols: 80,
    rows: 30,
    seed: async ({ workspace }) => {
      mkdirSync(join(workspace, ".claude", "commands"), { recursive: true });
      writeFileSync(
        join(workspace, ".claude", "commands", "review.md"),
        "---\ndescription: Review the staged changes\n---\nReview $ARGUMENTS\n",
      );
    },
  });
  t.after(() => nex.close());
  nex.pty.write("/re");
  await nex.pty.waitFor("Review the staged changes");
  const listed = nex.pty.screen();
  assert.match(listed, /\/resume +switch to a saved session/);
  assert.match(listed, /\/reasoning/);
  nex.pty.write("v");
  await nex.pty.waitUntil((s) => !s.includes("/resume"), "the list narrowed to /review");
  nex.pty.write("\t");
  await nex.pty.waitUntil((s) => /│ › \/review +│/.test(s), "/review completed");
  for (const line of nex.pty.screen().split("\n"))
    assert.ok([...line].length <= 80, `a line wider than the terminal: ${line}`);
});

test("@ completes workspace paths: folders first to their slash, then the file; Esc hides the list; Enter sends as typed", async (t) => {
  const nex = await startNexTui([openaiText("Read it.")], {
    cols: 80,
    rows: 30,
    files: { "README.md": "hello\n" },
    seed: async ({ workspace }) => {
      mkdirSync(join(workspace, "src", "parser"), { recursive: true });
      writeFileSync(join(workspace, "src", "parser", "lexer.ts"), "export {};\n");
      writeFileSync(join(workspace, "src", "main.ts"), "export {};\n");
    },
  });
  t.after(() => nex.close());
  nex.pty.write("look at @sr");
  await nex.pty.waitFor("@src/");
  nex.pty.write("\t");
  await nex.pty.waitUntil((s) => /│ › look at @src\/ +│/.test(s), "the folder completed");
  await nex.pty.waitUntil(
    (s) => s.includes("@src/main.ts") && s.includes("@src/parser/"),
    "its entries listed",
  );
  nex.pty.write("p");
  await nex.pty.waitUntil((s) => !s.includes("@src/main.ts"), "the list narrowed");
  nex.pty.write("\t");
  await nex.pty.waitUntil((s) => /│ › look at @src\/parser\/ +│/.test(s), "the subfolder");
  nex.pty.write("\t");
  await nex.pty.waitUntil((s) => /│ › look at @src\/parser\/lexer\.ts +│/.test(s), "the file");
  nex.pty.write(" and @RE");
  await nex.pty.waitFor("@README.md");
  nex.pty.write(keys.esc);
  await nex.pty.waitUntil((s) => !/^ +@README\.md/m.test(s), "the list hidden");
  nex.pty.write(`ADME.md${keys.enter}`);
  await nex.pty.waitFor("Read it.");
  const prompt = JSON.stringify(nex.chatRequests()[0]?.body);
  assert.match(prompt, /look at @src\/parser\/lexer\.ts +and @README\.md/);
  assert.match(prompt, /export \{\};/, "the completed file was attached");
});
