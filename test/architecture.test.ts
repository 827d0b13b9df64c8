import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";

// The layers of ARCHITECTURE.md: which of our folders each folder may import.
const allowed: Record<string, string[]> = {
  protocol: [],
  providers: ["protocol"],
  tools: ["protocol"],
  agent: ["protocol"],
  session: ["protocol"],
  runtime: ["agent", "providers", "tools", "session", "protocol"],
  headless: ["runtime", "protocol"],
  tui: ["runtime", "protocol"],
  demo: ["protocol"],
  cli: ["headless", "tui", "runtime", "demo", "protocol"],
};

const src = resolve(import.meta.dirname, "..", "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  for (const match of text.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)) {
    if (match[1]) found.push(match[1]);
  }
  return found;
}

test("every import follows the layer arrows of ARCHITECTURE.md", () => {
  const violations: string[] = [];
  for (const file of sourceFiles(src)) {
    const layer = relative(src, file).split("/")[0] ?? "";
    const permitted = allowed[layer];
    assert.ok(
      permitted,
      `${relative(src, file)} is in a folder that ARCHITECTURE.md does not name`,
    );
    for (const spec of importsOf(file)) {
      if (layer === "protocol" && !spec.startsWith(".")) {
        violations.push(
          `${relative(src, file)} imports ${spec}: protocol imports nothing outside itself`,
        );
      }
      if (!spec.startsWith(".")) continue;
      const target = relative(src, resolve(dirname(file), spec)).split("/")[0] ?? "";
      if (target !== layer && !permitted.includes(target)) {
        violations.push(`${relative(src, file)} imports ${spec} (${layer} → ${target})`);
      }
    }
  }
  assert.deepEqual(violations, []);
});
