import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { buildSystemPrompt } from "../../src/agent/system-prompt.ts";

test("the system prompt the model sees matches the golden file", () => {
  const prompt = buildSystemPrompt({
    workspace: "/home/user/project",
    agentsMd: "Run `make test` before you finish.",
    date: "2026-11-21",
  });
  assert.equal(prompt, readFileSync(join(import.meta.dirname, "system-prompt.golden.txt"), "utf8"));
});

test("the system prompt asks to read before writing, to prefer edit_file, and to write large files in parts", () => {
  const prompt = buildSystemPrompt({ workspace: "/w", agentsMd: null, date: "2026-11-21" });
  assert.match(prompt, /Read a file with read_file before you change it/);
  assert.match(prompt, /Prefer edit_file/);
  assert.match(prompt, /write a file of more than a few hundred lines in parts/);
  assert.doesNotMatch(prompt, /AGENTS\.md/);
});

test("the date comes last, so the prompt's prefix stays the same from day to day (prompt caches keep it)", () => {
  const monday = buildSystemPrompt({ workspace: "/w", agentsMd: "Be brief.", date: "2026-11-23" });
  const tuesday = buildSystemPrompt({ workspace: "/w", agentsMd: "Be brief.", date: "2026-11-24" });
  const shared = monday.length - "2026-11-23.".length;
  assert.equal(monday.slice(0, shared), tuesday.slice(0, shared));
  assert.ok(monday.endsWith("Today is 2026-11-23."));
});
