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
  mcp: ["protocol"],
  runtime: ["agent", "providers", "tools", "session", "mcp", "protocol"],
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

/** Every relative import of every source file, type-only ones included, as absolute paths. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(src)) {
    graph.set(
      file,
      importsOf(file)
        .filter((spec) => spec.startsWith("."))
        .map((spec) => resolve(dirname(file), spec)),
    );
  }
  return graph;
}

test("no import circles anywhere in src/, type-only imports included", () => {
  const graph = importGraph();
  const state = new Map<string, "visiting" | "done">();
  const stack: string[] = [];
  const circles: string[] = [];
  const visit = (file: string): void => {
    state.set(file, "visiting");
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "visiting") {
        circles.push(
          [...stack.slice(stack.indexOf(next)), next]
            .map((path) => relative(src, path))
            .join(" → "),
        );
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  assert.deepEqual(circles, []);
});

test("a sub-folder of a layer is entered through its index.ts only", () => {
  const violations: string[] = [];
  for (const [file, targets] of importGraph()) {
    for (const target of targets) {
      const parts = relative(src, target).split("/");
      // `tools/undo/checkpoints.ts`: layer `tools`, sub-folder `undo`.
      if (parts.length < 3) continue;
      const folder = join(src, parts[0] ?? "", parts[1] ?? "");
      const inside = file.startsWith(`${folder}/`);
      if (!inside && parts.slice(2).join("/") !== "index.ts")
        violations.push(
          `${relative(src, file)} imports ${relative(src, target)}: use ${relative(src, folder)}/index.ts`,
        );
    }
  }
  assert.deepEqual(violations, []);
});
