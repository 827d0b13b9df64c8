// The outcome's `files_changed` against an independent reference: the files whose bytes or mode
// differ between before and after a real `nex run`, for generated runs of writes, edits and commands
// sent by the stub endpoint.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import fc from "fast-check";
import { makeSandbox, runNex, type Sandbox } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCalls, type Script } from "../support/stub-scripts.ts";
import { conformanceSeed } from "./seed.ts";

const FILES = ["a.txt", "b.sh", "sub/c.txt", "new.txt"];
const CONTENTS = ["a\n", "b\n", "x\n", "x\ny\n"];

/** Every file under `root` (not `.git`), with its content hash and permission bits. */
function tree(root: string, dir = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of readdirSync(join(root, dir))) {
    const rel = dir ? `${dir}/${name}` : name;
    const info = lstatSync(join(root, rel));
    if (info.isDirectory()) {
      for (const [key, value] of tree(root, rel)) out.set(key, value);
    } else {
      const hash = createHash("sha256")
        .update(readFileSync(join(root, rel)))
        .digest("hex");
      out.set(rel, `${hash}:${(info.mode & 0o7777).toString(8)}`);
    }
  }
  return out;
}

/** One `nex run --yes` in the sandbox against a stub endpoint that answers with `scripts`. */
async function runAgainst(box: Sandbox, scripts: Script[], extra: string[] = []) {
  const stub = await startStubEndpoint({ scripts });
  try {
    return await runNex(
      [
        "run",
        ...["--model", "stub-model", "--base-url", `${stub.url}/v1`, "--data-dir", box.dataDir],
        "--yes",
        ...extra,
        "do it",
      ],
      { cwd: box.workspace, env: { ...box.env, OPENAI_API_KEY: "k" } },
    );
  } finally {
    await stub.close();
  }
}

function differing(before: Map<string, string>, after: Map<string, string>): string[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((key) => before.get(key) !== after.get(key)).sort();
}

const file = fc.constantFrom(...FILES);
const content = fc.constantFrom(...CONTENTS);
/** One turn of the model: the calls it makes. A change to a file reads it first, as the guard asks. */
const turn = fc.oneof(
  fc.tuple(file, content).map(([path, text]) => [
    { name: "read_file", args: { path } },
    { name: "write_file", args: { path, content: text } },
  ]),
  fc
    .tuple(file, fc.constantFrom("a", "b", "x", "y"), fc.constantFrom("a", "x", "z"))
    .map(([path, from, to]) => [
      { name: "read_file", args: { path } },
      { name: "edit_file", args: { path, old_string: from, new_string: to } },
    ]),
  fc
    .constantFrom(
      "ls",
      "true",
      "cat a.txt",
      "printf 'a\\n' > a.txt",
      "printf 'z\\n' > a.txt",
      "chmod +x a.txt",
      "chmod 644 b.sh",
      "chmod 755 b.sh",
      "cp a.txt new.txt",
      "rm -f sub/c.txt",
      "mkdir -p d && printf q > d/e.txt",
      "printf 'log\\n' > out.log",
      "touch a.txt",
    )
    .map((command) => [{ name: "bash", args: { command } }]),
);

test("files_changed and changed_files name exactly the files whose bytes or mode differ after a run of writes, edits and commands", async () => {
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(turn, { minLength: 1, maxLength: 4 }),
      fc.constantFrom("text", "json", "stream-json"),
      async (turns, format) => {
        runs++;
        const box = makeSandbox();
        const ws = box.workspace;
        mkdirSync(join(ws, "sub"));
        writeFileSync(join(ws, "a.txt"), "a\n");
        writeFileSync(join(ws, "b.sh"), "b\n");
        chmodSync(join(ws, "b.sh"), 0o755);
        writeFileSync(join(ws, "sub", "c.txt"), "x\ny\n");
        writeFileSync(join(ws, ".gitignore"), "*.log\n");
        const before = tree(ws);
        const scripts: Script[] = [
          ...turns.map((calls) => openaiToolCalls(calls)),
          openaiText("Done."),
        ];
        const flags = {
          text: [],
          json: ["--json"],
          "stream-json": ["--output-format", "stream-json"],
        };
        const result = await runAgainst(box, scripts, flags[format]);
        const expected = differing(before, tree(ws));
        let reported: { files_changed: number; changed_files: string[] };
        const last = result.stdout.trimEnd().split("\n").at(-1) ?? "{}";
        if (format === "json") {
          const { outcome } = JSON.parse(last);
          reported = { files_changed: outcome?.changes, changed_files: outcome?.changedFiles };
        } else if (format === "stream-json") {
          reported = JSON.parse(last).nex;
        } else {
          const line = result.stderr.trimEnd().split("\n").at(-1) ?? "";
          assert.match(line, /^nex: outcome \{/, result.stderr);
          reported = JSON.parse(line.slice("nex: outcome ".length));
        }
        const context = `${JSON.stringify(turns)}\n${result.stderr}`;
        assert.deepEqual(reported.changed_files, expected, context);
        assert.equal(reported.files_changed, expected.length, context);
      },
    ),
    { numRuns: 15, ...conformanceSeed() },
  );
  assert.equal(runs >= 15, true);
});

test("a run whose only command lists files reports no file changed, and turns count the session's own requests", async () => {
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "a.txt"), "a\n");
  const result = await runAgainst(box, [
    openaiToolCalls([{ name: "bash", args: { command: "ls" } }]),
    openaiText("Listed."),
  ]);
  const last = result.stderr.trimEnd().split("\n").at(-1) ?? "";
  const outcome = JSON.parse(last.slice("nex: outcome ".length));
  assert.equal(outcome.files_changed, 0, result.stderr);
  assert.deepEqual(outcome.changed_files, []);
  assert.equal(outcome.turns, 2);
});

test("the outcome's turns are the session's own, as --max-turns counts them; a sub-agent's requests are counted apart", async () => {
  const box = makeSandbox();
  const result = await runAgainst(
    box,
    [
      openaiToolCalls([{ name: "delegate", args: { task: "look around", max_turns: 3 } }]),
      openaiText("Nothing to see."),
      openaiText("The sub-agent found nothing."),
    ],
    ["--max-turns", "2"],
  );
  assert.equal(result.code, 0, result.stderr);
  const last = result.stderr.trimEnd().split("\n").at(-1) ?? "";
  const outcome = JSON.parse(last.slice("nex: outcome ".length));
  assert.equal(outcome.turns, 2, result.stderr);
  assert.equal(outcome.other_requests, 1);
});
