// The documentation says what the code does: the pages made from the code are current, every config
// example is a config nex accepts as it is (no setting it would ignore), and every `nex` command line
// in a shell example is one nex accepts.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { commandsPage, configSchema } from "../../scripts/docs.ts";
import { parseCommand } from "../../src/cli/args.ts";
import { resolveConfig } from "../../src/runtime/config/config.ts";
import { scratchDir } from "../support/scratch-dir.ts";
import { blocks, nexLines, root, words } from "./doc-examples.ts";

test("docs/commands.md and docs/config.schema.json are what the code makes (npm run docs)", () => {
  assert.equal(readFileSync(join(root, "docs", "commands.md"), "utf8"), commandsPage());
  // Compared as JSON: the formatter lays the committed file out its own way.
  assert.deepEqual(
    JSON.parse(readFileSync(join(root, "docs", "config.schema.json"), "utf8")),
    JSON.parse(configSchema()),
  );
});

test("every config example in the docs is a config nex accepts whole, $schema included", () => {
  const dir = scratchDir("nex-docs-");
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
  for (const { page, line } of nexLines()) {
    // Variables expanded as the shell would (to a plain word).
    const command = words(line.replace(/\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/g, "v1"));
    checked++;
    assert.doesNotThrow(() => parseCommand(command.slice(1)), `${page}: ${line}`);
  }
  assert.ok(checked >= 10, `${checked} command lines checked`);
});
