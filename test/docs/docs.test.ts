// The documentation says what the code does: the pages made from the code are current, every config
// example is a config nex accepts as it is (no setting it would ignore), and every `nex` command line
// in a shell example is one nex accepts.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { commandsPage, configSchema } from "../../scripts/docs.ts";
import { parseCommand } from "../../src/cli/args.ts";
import { resolveConfig } from "../../src/runtime/config/config.ts";

const root = resolve(import.meta.dirname, "..", "..");
const pages = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** The fenced blocks of `lang` in a page, with the page's name. */
function blocks(lang: RegExp): { page: string; body: string }[] {
  return pages.flatMap((page) =>
    [...readFileSync(join(root, page), "utf8").matchAll(/```(\w+)\n([\s\S]*?)```/g)]
      .filter((match) => lang.test(match[1] ?? ""))
      .map((match) => ({ page, body: match[2] ?? "" })),
  );
}

/** Shell words of a simple command line: quotes and comments as sh reads them, no expansions. */
function words(line: string): string[] {
  const found: string[] = [];
  for (const match of line.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(#.*$)|(\S+)/g)) {
    // A comment, a redirection, a pipe or the next command ends this one.
    if (match[3] !== undefined || /^(\d?>>?|<|\||&&|;|&)/.test(match[4] ?? "")) break;
    found.push(match[1] ?? match[2] ?? match[4] ?? "");
  }
  return found;
}

test("docs/commands.md and docs/config.schema.json are what the code makes (npm run docs)", () => {
  assert.equal(readFileSync(join(root, "docs", "commands.md"), "utf8"), commandsPage());
  // Compared as JSON: the formatter lays the committed file out its own way.
  assert.deepEqual(
    JSON.parse(readFileSync(join(root, "docs", "config.schema.json"), "utf8")),
    JSON.parse(configSchema()),
  );
});

test("every config example in the docs is a config nex accepts whole, $schema included", () => {
  const dir = mkdtempSync(join(tmpdir(), "nex-docs-"));
  const examples = blocks(/^json$/).filter(({ page }) => page !== "docs/editors.md");
  assert.ok(examples.length >= 5, "the examples were found");
  for (const { page, body } of [
    ...examples,
    { page: "$schema", body: '{ "$schema": "https://example.com/config.schema.json" }' },
  ]) {
    const file = join(dir, "config.json");
    writeFileSync(file, body);
    const config = resolveConfig({ config: file }, { HOME: dir }, dir);
    assert.deepEqual(config.notices, [], `${page}: ${body}`);
  }
});

test("every nex command line in the docs' shell examples is one nex accepts", () => {
  let checked = 0;
  for (const { page, body } of blocks(/^(sh|bash)$/)) {
    // Continued lines joined, and variables expanded as the shell would (to a plain word).
    const text = body.replace(/\\\n/g, " ").replace(/\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/g, "v1");
    for (const line of text.split("\n")) {
      const command = words(line.trim());
      const start = command[0] === "npx" ? 1 : 0;
      if (command[start] !== "nex") continue;
      checked++;
      assert.doesNotThrow(() => parseCommand(command.slice(start + 1)), `${page}: ${line}`);
    }
  }
  assert.ok(checked >= 10, `${checked} command lines checked`);
});
