// NO_COLOR and FORCE_COLOR, as every other tool reads them: the chat's own colours and those of the
// libraries it draws with (ink's chalk, the markdown renderer's, its code highlighter's) agree. Each
// case is a fresh process, since the libraries read the environment once, when they load.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { spawnPty } from "../support/pty.ts";

const src = resolve(import.meta.dirname, "..", "..", "src");
const script = `
const { applyColourPolicy } = await import(${JSON.stringify(pathToFileURL(`${src}/tui/colour.ts`).href)});
applyColourPolicy();
const markdown = await import(${JSON.stringify(pathToFileURL(`${src}/tui/markdown/markdown.ts`).href)});
const { default: chalk } = await import("chalk");
await markdown.loadMarkdown();
const text = markdown.renderMarkdown("# Title\\n\\nUse \`npm test\`.\\n\\n\`\`\`js\\nconst a = 1;\\n\`\`\`\\n", 60);
process.stdout.write(JSON.stringify({ text, chalk: chalk.red("x") }));
`;

// Colour SGR parameters: 30-39, 40-49, 90-97, 100-107 (bold 1, dim 2, underline 4 are not colours).
const ESC = String.fromCharCode(27);
const COLOUR = new RegExp(`${ESC}\\[(?:[0-9;]*;)?(?:3[0-9]|4[0-9]|9[0-7]|10[0-7])(?:;[0-9;]*)?m`);

function environment(env: Record<string, string>): Record<string, string> {
  const clean = Object.entries(process.env).filter(
    (entry): entry is [string, string] =>
      entry[1] !== undefined && !/^(NO_COLOR|FORCE_COLOR|TERM)$/.test(entry[0]),
  );
  return { ...Object.fromEntries(clean), TERM: "xterm-256color", ...env };
}

/** The rendering, its output a pipe (no terminal). */
function render(env: Record<string, string>): { text: string; chalk: string } {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: resolve(src, ".."),
    env: environment(env),
    encoding: "utf8",
  });
  return JSON.parse(out) as { text: string; chalk: string };
}

/** The rendering, its output a real terminal (where colours are on unless something says no). */
async function renderOnTerminal(env: Record<string, string>): Promise<string> {
  const child = spawnPty(process.execPath, ["--input-type=module", "-e", script], {
    cwd: resolve(src, ".."),
    env: environment(env),
    cols: 200,
  });
  await child.exited;
  const { text, chalk } = JSON.parse(child.output().replace(/\r?\n/g, "")) as {
    text: string;
    chalk: string;
  };
  return `${text}\n${chalk}`;
}

test("on a terminal, NO_COLOR turns every colour off, chalk's included; bold and underline stay", async () => {
  const coloured = await renderOnTerminal({});
  assert.match(coloured, COLOUR, "a terminal gets colours by default");
  const plain = await renderOnTerminal({ NO_COLOR: "1" });
  assert.doesNotMatch(plain, COLOUR);
  assert.ok(plain.includes(`${ESC}[1m`), "bold is not a colour");
  const empty = await renderOnTerminal({ NO_COLOR: "" });
  assert.match(empty, COLOUR, "an empty NO_COLOR is not set (no-color.org)");
});

test("FORCE_COLOR turns colours on without a terminal, and wins over NO_COLOR", () => {
  const cases: Record<string, string>[] = [
    { FORCE_COLOR: "1" },
    { FORCE_COLOR: "1", NO_COLOR: "1" },
  ];
  for (const env of cases) {
    const coloured = render(env);
    assert.match(coloured.text, COLOUR, JSON.stringify(env));
    assert.match(coloured.chalk, COLOUR);
  }
  const off = render({ FORCE_COLOR: "0" });
  assert.doesNotMatch(off.text, COLOUR);
  assert.equal(off.chalk, "x");
});
