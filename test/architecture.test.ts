import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";

// The layers of ARCHITECTURE.md: which of our folders each folder may import.
const allowed: Record<string, string[]> = {
  protocol: [],
  net: ["protocol"],
  providers: ["net", "protocol"],
  tools: ["protocol"],
  agent: ["protocol"],
  session: ["protocol"],
  web: ["net", "protocol"],
  mcp: ["net", "protocol"],
  runtime: ["agent", "providers", "tools", "session", "web", "mcp", "net", "protocol"],
  headless: ["runtime", "protocol"],
  tui: ["runtime", "protocol"],
  acp: ["runtime", "protocol"],
  demo: ["protocol"],
  cli: ["headless", "tui", "acp", "runtime", "demo", "protocol"],
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

test("one HTTP client: only net/ sends requests through proxies or decompresses a response", () => {
  const outside = sourceFiles(src)
    .filter((file) => !relative(src, file).startsWith("net/"))
    .filter((file) =>
      /createGunzip|createBrotliDecompress|createInflate|proxy-agent|\bproxyEnv\b/.test(
        readFileSync(file, "utf8"),
      ),
    )
    .map((file) => relative(src, file));
  assert.deepEqual(outside, [], "use net/'s client (createHttpFetch) and its proxy module");
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

/** The circles of a directed graph, each as its nodes from start back to start. */
function circlesOf(graph: Map<string, Iterable<string>>): string[][] {
  const state = new Map<string, "visiting" | "done">();
  const stack: string[] = [];
  const circles: string[][] = [];
  const visit = (node: string): void => {
    state.set(node, "visiting");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "visiting") circles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return circles;
}

test("no import circles anywhere in src/, type-only imports included", () => {
  const circles = circlesOf(importGraph()).map((loop) =>
    loop.map((path) => relative(src, path)).join(" → "),
  );
  assert.deepEqual(circles, []);
});

/** The sub-folders of layers that hold `file`, outermost first: `tools/shell/sandbox/x.ts` → `tools/shell`, `tools/shell/sandbox`. */
function subFoldersOf(file: string): string[] {
  const parts = relative(src, file).split("/").slice(0, -1);
  return parts.slice(1).map((_, i) => join(src, ...parts.slice(0, i + 2)));
}

test("every sub-folder of a layer, at any depth, is entered through its index.ts only", () => {
  const violations: string[] = [];
  for (const [file, targets] of importGraph()) {
    for (const target of targets) {
      for (const folder of subFoldersOf(target)) {
        if (file.startsWith(`${folder}/`) || target === join(folder, "index.ts")) continue;
        violations.push(
          `${relative(src, file)} imports ${relative(src, target)}: import ${relative(src, folder)}/index.ts instead`,
        );
        break;
      }
    }
  }
  assert.deepEqual(violations, []);
});

test("no circles between sub-folders: a sub-folder may use another's index, never in a circle", () => {
  // Edges between sibling sub-folders (the innermost pair that differs), with one import as the witness.
  const edges = new Map<string, Map<string, string>>();
  for (const [file, targets] of importGraph()) {
    const from = subFoldersOf(file);
    for (const target of targets) {
      const to = subFoldersOf(target);
      const depth = from.findIndex((folder, i) => folder !== to[i]);
      const a = from[depth];
      const b = to[depth];
      if (depth < 0 || a === undefined || b === undefined) continue;
      const out = edges.get(a) ?? new Map<string, string>();
      if (!out.has(b)) out.set(b, `${relative(src, file)} imports ${relative(src, target)}`);
      edges.set(a, out);
    }
  }
  const circles = circlesOf(new Map([...edges].map(([from, out]) => [from, out.keys()]))).map(
    (loop) =>
      loop
        .slice(1)
        .map((to, i) => edges.get(loop[i] ?? "")?.get(to))
        .join("; "),
  );
  assert.deepEqual(circles, []);
});

// The runtime's folders, each answering one question, from the composition root down: a folder
// imports only folders below it, so the order reads as "who may use whom" (ARCHITECTURE.md).
const runtimeFolders = [
  "assembly",
  "doctor",
  "mcp",
  "session",
  "history",
  "secrets",
  "web",
  "subagents",
  "context",
  "extensions",
  "hooks",
  "config",
  "consent",
];

test("the runtime is folders only, each importing only the folders below it in ARCHITECTURE.md's order", () => {
  const runtime = join(src, "runtime");
  const entries = readdirSync(runtime, { withFileTypes: true });
  assert.deepEqual(
    entries.filter((entry) => !entry.isDirectory()).map((entry) => entry.name),
    [],
    "a file directly in src/runtime/ belongs in the folder that answers its question",
  );
  assert.deepEqual(
    entries.map((entry) => entry.name).sort(),
    [...runtimeFolders].sort(),
    "every runtime folder has its place in runtimeFolders (and in ARCHITECTURE.md)",
  );
  const rank = (path: string): number => {
    const [layer, folder] = relative(src, path).split("/");
    return layer === "runtime" && folder !== undefined ? runtimeFolders.indexOf(folder) : -1;
  };
  const upward: string[] = [];
  for (const [file, targets] of importGraph()) {
    const from = rank(file);
    if (from < 0) continue;
    for (const target of targets) {
      const to = rank(target);
      if (to >= 0 && to < from)
        upward.push(`${relative(src, file)} imports ${relative(src, target)}: a folder above it`);
    }
  }
  assert.deepEqual(upward, []);
});

test("ARCHITECTURE.md names every folder under src/ as `src/…/`, and every src/ path it names exists", () => {
  const text = readFileSync(resolve(src, "..", "ARCHITECTURE.md"), "utf8");
  const folders = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((entry) => [join(dir, entry.name), ...folders(join(dir, entry.name))]);
  const named = [...text.matchAll(/`src\/([\w./-]*)`/g)].map((match) => match[1] ?? "");
  assert.deepEqual(
    folders(src)
      .map((folder) => `${relative(src, folder)}/`)
      .filter((folder) => !named.includes(folder)),
    [],
    "folders ARCHITECTURE.md does not name (one line each is enough)",
  );
  assert.deepEqual(
    named.filter((path) => {
      const isFolder = path === "" || path.endsWith("/");
      return !(existsSync(join(src, path)) && statSync(join(src, path)).isDirectory() === isFolder);
    }),
    [],
    "paths ARCHITECTURE.md names that do not exist",
  );
});

// A ratchet: the counts may only fall (`node bench/code-size.ts` lists them). All three are at zero:
// a new file, function or folder past the limit is split as it is written.
const FILES_OVER_LIMIT = 0;
const FUNCTIONS_OVER_LIMIT = 0;
const FOLDERS_OVER_LIMIT = 0;

test("no more files over 500 lines or functions over 120 lines than the ratchet allows", async () => {
  const { MAX_FILE_LINES, MAX_FUNCTION_LINES, measureFiles, measureFunctions } = await import(
    "../bench/code-size.ts"
  );
  const files = measureFiles().filter((f) => f.lines > MAX_FILE_LINES);
  const functions = measureFunctions().filter((f) => f.lines > MAX_FUNCTION_LINES);
  assert.ok(
    files.length <= FILES_OVER_LIMIT,
    `files over ${MAX_FILE_LINES} lines: ${files.map((f) => `${f.file} (${f.lines})`).join(", ")}`,
  );
  assert.ok(
    functions.length <= FUNCTIONS_OVER_LIMIT,
    `functions over ${MAX_FUNCTION_LINES} lines: ${functions.map((f) => `${f.name} in ${f.file} (${f.lines})`).join(", ")}`,
  );
});

test("no folder under src/ holds more than 20 files side by side", async () => {
  const { MAX_FOLDER_FILES, measureFolders } = await import("../bench/code-size.ts");
  const crowded = measureFolders().filter((f) => f.files > MAX_FOLDER_FILES);
  assert.ok(
    crowded.length <= FOLDERS_OVER_LIMIT,
    `folders with more than ${MAX_FOLDER_FILES} files (cut each into sub-folders that answer one question, each with an index.ts): ${crowded.map((f) => `src/${f.folder} (${f.files})`).join(", ")}`,
  );
});

// A sub-folder (below a layer, at any depth) is entered through its index.ts, which must exist and
// be what code outside uses (the test above refuses any other way in). The layers themselves are
// the exception: a layer is entered through the top-level file that answers the caller's question
// (`agent/loop.ts`, `headless/run.ts`, `tui/colour.ts`), because a layer-wide index would load the
// whole layer with its first import and undo the lazy loading start-up depends on; the layer arrows
// (the first test) are what keeps layers apart.
test("every sub-folder of a layer has an index.ts, and code outside the sub-folder uses it", () => {
  const folders = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((entry) => [join(dir, entry.name), ...folders(join(dir, entry.name))]);
  const layers = readdirSync(src, { withFileTypes: true }).filter((entry) => entry.isDirectory());
  const subFolders = layers.flatMap((layer) => folders(join(src, layer.name)));
  const importers = new Map<string, string[]>();
  for (const [file, targets] of importGraph())
    for (const target of targets) importers.set(target, [...(importers.get(target) ?? []), file]);
  const problems: string[] = [];
  for (const folder of subFolders) {
    const index = join(folder, "index.ts");
    const outside = (importers.get(index) ?? []).filter((file) => !file.startsWith(`${folder}/`));
    if (!readdirSync(folder).includes("index.ts"))
      problems.push(`${relative(src, folder)} has no index.ts`);
    else if (outside.length === 0)
      problems.push(`nothing outside ${relative(src, folder)} imports its index.ts`);
  }
  assert.deepEqual(problems, []);
});
