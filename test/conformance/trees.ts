// Generated workspaces for the conformance suite: real files in a temp directory, with ignore files,
// binary files and a name that is not UTF-8, in a git repository or not.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { type Sandbox, sandbox } from "../tools/helpers.ts";

/** Whether a program answers `--version` here. */
export function installed(program: string): boolean {
  try {
    execFileSync(program, ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

export const hasRipgrep = installed("rg");

/** Lines that tell the regex dialects apart: Unicode digits and letters, `\r`, astral characters. */
export const LINES = [
  "needle",
  "Needle in CAPS",
  "foo bar",
  "foo_bar(42)",
  "a1b2 c3",
  "tab\there",
  "crlf line\r",
  "",
  "   ",
  "ünïcödé 3",
  "٣ is a digit",
  "emoji 😀 here",
  "ſ long s and K kelvin",
  "path/to/file.ts:12",
  "x = {y: [1, 2]}",
  "ends with e",
  "ΑΒΓ greek",
  "zero-width\u200bspace",
];

const NAMES = ["a", "b", "c", "d.txt", "e.py", ".h", "f g.md", "ü.txt", "node_modules", "k.log"];
const RULES = [
  "*.py",
  "b/",
  "/c",
  "!d.txt",
  "*.txt",
  "a/**/e.py",
  "# a comment",
  "b",
  ".h",
  "f*",
  "!e.py",
  "*.log",
  "c/",
  "**/a",
  "\\#x",
  "d.txt ",
];

export interface TreeFile {
  path: string;
  /** Text lines joined with `\n`, or bytes for a binary file. */
  content: string | Buffer;
}

export interface TreeSpec {
  files: TreeFile[];
  /** Ignore files: directory → lines of its .gitignore. */
  ignores: { dir: string; lines: string[] }[];
  exclude: string[];
  git: boolean;
  /** A file whose name is not UTF-8. */
  badName: boolean;
}

const pathArb = fc
  .array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 })
  .map((parts) => parts.join("/"));

const textArb = fc
  .array(fc.constantFrom(...LINES), { minLength: 0, maxLength: 8 })
  .chain((lines) =>
    fc.constantFrom("\n", "").map((end) => (lines.length ? lines.join("\n") + end : "")),
  );

// Text with bytes that are not UTF-8 (and no NUL): ripgrep searches it, matching no invalid byte.
const notUtf8Arb = textArb.map((text) =>
  Buffer.concat([
    Buffer.from([0x66, 0x6f, 0x6f, 0xff, 0x20, 0xe9, 0x0a, 0xe2, 0x82, 0x65, 0x0a]),
    Buffer.from(text),
  ]),
);

const binaryArb = textArb.map((text) =>
  Buffer.concat([Buffer.from(`needle ${text}`), Buffer.from([0, 1])]),
);

export const treeArb: fc.Arbitrary<TreeSpec> = fc.record({
  files: fc.uniqueArray(
    fc.record({
      path: pathArb,
      content: fc.oneof(
        { weight: 5, arbitrary: textArb },
        { weight: 1, arbitrary: binaryArb },
        { weight: 1, arbitrary: notUtf8Arb },
      ),
    }),
    { minLength: 1, maxLength: 12, selector: (f) => f.path },
  ),
  ignores: fc.array(
    fc.record({
      dir: fc.constantFrom("", "a", "b", "a/b"),
      lines: fc.array(fc.constantFrom(...RULES), { maxLength: 4 }),
    }),
    { maxLength: 3 },
  ),
  exclude: fc.array(fc.constantFrom(...RULES), { maxLength: 2 }),
  git: fc.boolean(),
  badName: fc.boolean(),
});

/** Writes the tree into a fresh workspace; files that would sit under a file's path are dropped. */
export function writeTree(spec: TreeSpec): { box: Sandbox; files: TreeFile[] } {
  const box = sandbox();
  const written: TreeFile[] = [];
  const taken = new Set<string>();
  for (const file of spec.files) {
    const parts = file.path.split("/");
    const clashes =
      parts.some((_, i) => taken.has(parts.slice(0, i + 1).join("/")) && i < parts.length - 1) ||
      [...taken].some((t) => t.startsWith(`${file.path}/`));
    if (clashes) continue;
    mkdirSync(dirname(box.path(file.path)), { recursive: true });
    writeFileSync(box.path(file.path), file.content);
    taken.add(file.path);
    written.push(file);
  }
  for (const { dir, lines } of spec.ignores) {
    if (taken.has(dir) || [...taken].some((t) => dir.startsWith(`${t}/`))) continue;
    mkdirSync(box.path(dir), { recursive: true });
    writeFileSync(join(box.path(dir), ".gitignore"), `${lines.join("\n")}\n`);
  }
  if (spec.badName)
    writeFileSync(
      Buffer.concat([Buffer.from(`${box.workspace}/bad-`), Buffer.from([0xff, 0xfe])]),
      "needle in a badly named file\n",
    );
  if (spec.git) {
    execFileSync("git", ["init", "-q"], { cwd: box.workspace });
    writeFileSync(join(box.workspace, ".git", "info", "exclude"), `${spec.exclude.join("\n")}\n`);
  }
  return { box, files: written };
}

/** git's own listing of the workspace: tracked and untracked files its ignore rules keep. */
export function gitListing(root: string): string[] {
  const out = execFileSync(
    "git",
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    {
      cwd: root,
      env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
    },
  );
  return out
    .toString("utf8")
    .split("\0")
    .filter((p) => p !== "");
}

/** ripgrep's own listing (its walk and rules), outside git as nex runs it. */
export function ripgrepListing(root: string, dir = "."): string[] {
  const child = spawnSync(
    "rg",
    [
      "--files",
      "--no-config",
      "--hidden",
      "--no-require-git",
      "-g",
      "!.git",
      "-g",
      "!node_modules",
      dir,
    ],
    { cwd: root, env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null" } },
  );
  // Exit 1 is ripgrep's "no file at all" (every one ignored), not a failure.
  if (child.status !== 0 && child.status !== 1)
    throw new Error(`rg --files failed (${child.status}): ${child.stderr}`);
  return child.stdout
    .toString("utf8")
    .split("\n")
    .filter((p) => p !== "")
    .map((p) => p.replace(/^\.\//, ""));
}

/** Lines of a tool's list result after its header line. */
export function resultLines(content: string): string[] {
  return content.split("\n").slice(1);
}
