import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { createFileSearch } from "../../src/tools/search/file-search.ts";
import { patienceMs } from "../support/until.ts";
import { host, run, type Sandbox, sandbox } from "./helpers.ts";

const hasRipgrep = (() => {
  try {
    execFileSync("rg", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

function files(box: Sandbox, tree: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(tree)) {
    mkdirSync(dirname(box.path(path)), { recursive: true });
    writeFileSync(box.path(path), content);
  }
}

function project(): Sandbox {
  const box = sandbox();
  files(box, {
    ".gitignore": "build/\n*.log\n",
    "src/a.ts": "const needle = 1;\n",
    "src/b.js": "// needle two\n",
    "src/sub/.gitignore": "secret.ts\n",
    "src/sub/secret.ts": "needle secret\n",
    "src/sub/ok.ts": "needle ok\n",
    "build/out.ts": "needle in build output\n",
    "debug.log": "needle in a log\n",
    "node_modules/pkg/index.js": "needle in a dependency\n",
    ".git/config": "needle in git\n",
    "image.bin": Buffer.concat([Buffer.from("needle"), Buffer.from([0, 1, 2])]),
    ".github/ci.yml": "needle: hidden dir\n",
  });
  return box;
}

const paths = (content: string): string[] =>
  content
    .split("\n")
    .slice(1)
    .map((line) => line.split(":")[0] ?? "")
    .sort();

for (const backend of ["ripgrep", "javascript"] as const) {
  describe(`grep and glob with ${backend}`, {
    skip: backend === "ripgrep" && !hasRipgrep ? "rg is not on PATH" : false,
  }, () => {
    const options = { useRipgrep: backend === "ripgrep" };

    test("grep honours .gitignore (nested too), skips .git, node_modules and binary files", async () => {
      const out = await run(host(project(), options), "grep", { pattern: "needle" });
      assert.equal(out.isError, false, out.content);
      assert.deepEqual(paths(out.content), [
        ".github/ci.yml",
        "src/a.ts",
        "src/b.js",
        "src/sub/ok.ts",
      ]);
      assert.match(out.content, /^4 matches in 4 files\./);
      assert.match(out.content, /src\/a\.ts:1: const needle = 1;/);
    });

    test("grep filters by glob and searches under a path", async () => {
      const tools = host(project(), options);
      const byGlob = await run(tools, "grep", { pattern: "needle", glob: "*.ts" });
      assert.deepEqual(paths(byGlob.content), ["src/a.ts", "src/sub/ok.ts"]);
      const byPath = await run(tools, "grep", {
        pattern: "NEEDLE",
        path: "src/sub",
        ignore_case: true,
      });
      assert.deepEqual(paths(byPath.content), ["src/sub/ok.ts"]);
    });

    test("grep keeps every match and says how many there were", async () => {
      const box = sandbox();
      files(box, { "many.txt": "hit\n".repeat(250), "more.txt": "hit\n".repeat(5) });
      const out = await run(host(box, options), "grep", { pattern: "hit" });
      assert.match(out.content, /^255 matches in 2 files\./);
      assert.equal(out.content.split("\n").length, 256);
    });

    test("grep's `^` after another assertion anchors at each line's start, not only the file's (`$^` finds empty lines)", async () => {
      const box = sandbox();
      files(box, { "t.txt": "a\n\nb\n b\n\n" });
      const tools = host(box, options);
      const lines = async (pattern: string): Promise<string> => {
        const out = await run(tools, "grep", { pattern, path: "t.txt" });
        assert.equal(out.isError, false, out.content);
        return out.content.startsWith("No ")
          ? ""
          : out.content
              .split("\n")
              .slice(1)
              .map((line) => line.split(":")[1])
              .join(",");
      };
      assert.equal(await lines("$^"), "2,5");
      assert.equal(await lines("\\b^"), "1,3");
      assert.equal(await lines("\\B^"), "2,4,5");
      assert.equal(await lines("(?:$)^|a"), "1,2,5");
      const refused = await run(tools, "grep", { pattern: "(?:$|q)^", path: "t.txt" });
      assert.equal(refused.code, "invalid_arguments");
      assert.match(refused.content, /put each `\^` at the start of its branch/);
    });

    test("a folder named as grep's path follows the same rules as the root: node_modules stays skipped in a repository that does not ignore it", async () => {
      const box = sandbox();
      files(box, {
        "node_modules/pkg/a.js": "needle\n",
        "src/node_modules/b.js": "needle\n",
        "src/c.js": "needle\n",
      });
      execFileSync("git", ["init", "-q"], { cwd: box.workspace });
      const tools = host(box, options);
      for (const path of ["node_modules", "node_modules/pkg", "src/node_modules"]) {
        const out = await run(tools, "grep", { pattern: "needle", path });
        assert.match(out.content, /^No file was searched in .*use bash/, `${path}: ${out.content}`);
        const listed = await run(tools, "glob", { pattern: "*.js", path });
        assert.match(listed.content, /^No files match/, `${path}: ${listed.content}`);
      }
      const src = await run(tools, "grep", { pattern: "needle", path: "src" });
      assert.equal(src.content, "1 match in 1 file.\nsrc/c.js:1: needle");
      // A file named by path is searched whatever the rules say.
      const file = await run(tools, "grep", { pattern: "needle", path: "node_modules/pkg/a.js" });
      assert.equal(file.content, "1 match in 1 file.\nnode_modules/pkg/a.js:1: needle");
    });

    test("grep with an invalid regular expression says so", async () => {
      const out = await run(host(project(), options), "grep", { pattern: "(unclosed" });
      assert.equal(out.code, "invalid_arguments");
      assert.match(out.content, /unclosed `\(`.*fix the pattern/);
    });

    test("glob honours .gitignore and matches names at any depth or paths with /", async () => {
      const tools = host(project(), options);
      const names = await run(tools, "glob", { pattern: "*.ts" });
      assert.equal(names.content, "2 files match *.ts.\nsrc/a.ts\nsrc/sub/ok.ts");
      const deep = await run(tools, "glob", { pattern: "sub/*.ts", path: "src" });
      assert.equal(deep.content, "1 file matches sub/*.ts.\nsrc/sub/ok.ts");
      const none = await run(tools, "glob", { pattern: "*.py" });
      assert.match(none.content, /^No files match \*\.py/);
    });

    test("an interrupted grep or glob ends as aborted and leaves no unhandled rejection behind", async () => {
      const unhandled: unknown[] = [];
      const note = (reason: unknown): void => {
        unhandled.push(reason);
      };
      process.on("unhandledRejection", note);
      try {
        const box = project();
        const search = createFileSearch(
          box.workspace,
          { PATH: process.env.PATH },
          options.useRipgrep,
        );
        const stopped = AbortSignal.abort();
        await assert.rejects(search.listFiles(box.workspace, stopped), { name: "AbortError" });
        await assert.rejects(
          search.grep({
            pattern: "needle",
            dir: box.workspace,
            ignoreCase: false,
            keep: 10,
            signal: stopped,
          }),
          { name: "AbortError" },
        );
        const tools = host(box, options);
        for (const [name, args] of [
          ["grep", { pattern: "needle" }],
          ["glob", { pattern: "*" }],
        ] as const) {
          const esc = new AbortController();
          const pending = run(tools, name, args, { signal: esc.signal });
          setImmediate(() => esc.abort());
          const out = await pending;
          if (out.isError) assert.equal(out.code, "aborted", out.content);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
        assert.deepEqual(unhandled, []);
      } finally {
        process.off("unhandledRejection", note);
      }
    });

    test("glob caps its result and says how many files matched", async () => {
      const box = sandbox();
      const tree: Record<string, string> = {};
      for (let i = 0; i < 250; i += 1) tree[`f/${String(i).padStart(3, "0")}.txt`] = "x";
      files(box, tree);
      const out = await run(host(box, options), "glob", { pattern: "*.txt" });
      assert.match(
        out.content,
        /^Showing 200 of 250 files matching \*\.txt; narrow the pattern or path to see the rest\./,
      );
      assert.equal(out.content.split("\n").length, 201);
    });
  });
}

test("the search uses ripgrep only when it is on PATH, checked once", async () => {
  const box = sandbox();
  assert.equal(await createFileSearch(box.workspace, { PATH: "" }, true).backend(), "javascript");
  assert.equal(
    await createFileSearch(box.workspace, { PATH: process.env.PATH }, false).backend(),
    "javascript",
  );
  if (hasRipgrep)
    assert.equal(
      await createFileSearch(box.workspace, { PATH: process.env.PATH }, true).backend(),
      "ripgrep",
    );
});

test("list_dir shows entries with type and size, and caps long listings", async () => {
  const box = sandbox();
  files(box, { "a.txt": "hello", "src/x.ts": "" });
  const tools = host(box);
  const out = await run(tools, "list_dir", {});
  assert.equal(out.content, ".: 2 entries.\na.txt  (5 bytes)\nsrc/");
  const many = sandbox();
  const tree: Record<string, string> = {};
  for (let i = 0; i < 510; i += 1) tree[`d/${i}.txt`] = "";
  files(many, tree);
  const capped = await run(host(many), "list_dir", { path: "d" });
  assert.match(capped.content, /^d: showing 500 of 510 entries/);
});

test("grep, glob and list_dir on a directory that does not exist say so and how to find the right one", async () => {
  const box = project();
  const tools = host(box);
  for (const [name, args] of [
    ["grep", { pattern: "needle", path: "nowhere" }],
    ["glob", { pattern: "*", path: "nowhere" }],
    ["list_dir", { path: "nowhere" }],
  ] as const) {
    const out = await run(tools, name, args);
    assert.equal(out.isError, true, name);
    assert.equal(out.code, "not_found", name);
    assert.match(out.content, /nowhere does not exist\. (Use|List)/, name);
  }
});

test("a catastrophic pattern from the model (`(a+)+$`) cannot freeze nex: the search answers at once", () => {
  const box = sandbox();
  files(box, { "long.txt": `${"a".repeat(40)}!\n`, "hit.txt": "aaa\n" });
  // In a child process: a frozen event loop would also freeze this test's own timeout.
  const child = spawnSync(
    process.execPath,
    [
      join(import.meta.dirname, "fixtures", "catastrophic-grep.ts"),
      box.workspace,
      box.checkpointDir,
    ],
    // Only a bound for the freeze (2^40 steps): far past a loaded machine's start and search.
    { encoding: "utf8", timeout: patienceMs },
  );
  assert.equal(child.signal, null, "the search froze and was killed");
  assert.match(child.stdout, /hit\.txt:1: aaa/);
  assert.doesNotMatch(child.stdout, /long\.txt/);
});

test("a catastrophic Unicode pattern (`(\\w+)+$`, which V8 cannot run in linear time) is stopped on the file it runs away on, and said", () => {
  const box = sandbox();
  files(box, { "long.txt": `${"a".repeat(40)}!\n`, "hit.txt": "aaa\n" });
  const child = spawnSync(
    process.execPath,
    [
      join(import.meta.dirname, "fixtures", "catastrophic-grep.ts"),
      box.workspace,
      box.checkpointDir,
      "(\\w+)+$",
    ],
    { encoding: "utf8", timeout: patienceMs },
  );
  assert.equal(child.signal, null, "the search froze and was killed");
  assert.match(child.stdout, /hit\.txt:1: aaa/);
  assert.match(child.stdout, /Could not search 1 path: long\.txt \(the pattern ran over 5 s on it/);
});

test("a search worker that starts slowly (a loaded machine) is not judged a runaway pattern: the budget starts once it has loaded", async () => {
  const { searchInWorker } = await import("../../src/tools/search/worker-search.ts");
  const { translatePattern } = await import("../../src/tools/search/pattern.ts");
  const box = sandbox();
  files(box, { "small.txt": "Straße\n" });
  const found: string[] = [];
  const budgetMs = 1000;
  const search = searchInWorker(
    translatePattern("(?i)S", false),
    ["small.txt"],
    (path) => box.path(path),
    new AbortController().signal,
    (path, result) => found.push(`${path}: ${result.type}`),
    budgetMs,
  );
  // The main thread busy past the budget while the worker starts, as on a machine under load: the
  // budget's check comes due before the worker's first message is read.
  const until = Date.now() + budgetMs * 1.5;
  while (Date.now() < until) {
    // busy
  }
  await search;
  assert.deepEqual(found, ["small.txt: lines"]);
});
