// glob and list_dir checked on generated workspaces: glob lists what git's listing (or ripgrep's,
// outside a repository) keeps, list_dir shows every entry of the directory as the file system has it.

import assert from "node:assert/strict";
import { lstatSync, readdirSync, symlinkSync } from "node:fs";
import { basename, matchesGlob } from "node:path";
import { test } from "node:test";
import fc from "fast-check";
import { host, run } from "../tools/helpers.ts";
import { conformanceSeed } from "./seed.ts";
import {
  gitListing,
  hasRipgrep,
  resultLines,
  ripgrepListing,
  treeArb,
  writeTree,
} from "./trees.ts";

const RUNS = Number(process.env.NEX_CONFORMANCE_RUNS ?? 40) * 2;
const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
const GLOBS = ["*", "*.txt", "*.py", "a/*", "**/*.md", "*.{txt,md}", "a/**/e.py", ".*"];

const globMatch = (glob: string, path: string): boolean =>
  glob.includes("/") ? matchesGlob(path, glob) : matchesGlob(basename(path), glob);

test("glob lists exactly the files git's (or ripgrep's) ignore rules keep", async () => {
  let cases = 0;
  await fc.assert(
    fc.asyncProperty(
      treeArb.filter((spec) => spec.git || hasRipgrep),
      fc.array(fc.constantFrom(...GLOBS), { minLength: 2, maxLength: 5 }),
      async (spec, globs) => {
        const { box } = writeTree(spec);
        const reference = (spec.git ? gitListing(box.workspace) : ripgrepListing(box.workspace))
          .filter((p) => !p.includes("\uFFFD") && !p.split("/").includes("node_modules"))
          .sort();
        // The listing is one for both backends (file-list.ts), so one host answers for both.
        {
          const tools = host(box, { env });
          for (const pattern of globs) {
            cases += 1;
            const out = await run(tools, "glob", { pattern });
            const where = `glob ${pattern} in ${JSON.stringify(spec)}`;
            const expected = reference.filter((p) => globMatch(pattern, p));
            const got = out.content.startsWith("No files") ? [] : resultLines(out.content);
            assert.deepEqual(got, expected, where);
            if (spec.badName) assert.match(out.content, /not valid UTF-8/, where);
          }
        }
      },
    ),
    { numRuns: RUNS, ...conformanceSeed() },
  );
  console.log(`glob conformance: ${cases} listings, ${RUNS} workspaces`);
});

test("list_dir shows every entry of a directory, as lstat sees it, never fewer than it counts", async () => {
  let cases = 0;
  await fc.assert(
    fc.asyncProperty(treeArb, fc.boolean(), async (spec, link) => {
      const { box } = writeTree(spec);
      if (link) symlinkSync("a/nowhere", box.path("link"));
      const tools = host(box);
      const dirs = ["."];
      for (const name of readdirSync(box.workspace))
        if (!name.includes("\uFFFD") && lstatSync(box.path(name)).isDirectory()) dirs.push(name);
      for (const dir of dirs) {
        cases += 1;
        const out = await run(tools, "list_dir", { path: dir });
        const names = readdirSync(box.path(dir)).sort();
        const lines = names.length === 0 ? [] : resultLines(out.content);
        assert.equal(lines.length, names.length, out.content);
        lines.forEach((line, i) => {
          const name = names[i] as string;
          assert.ok(line.startsWith(name), `${line} is not ${name}`);
          if (name.includes("\uFFFD")) {
            assert.match(line, /not valid UTF-8/);
            return;
          }
          const info = lstatSync(box.path(`${dir}/${name}`));
          if (info.isDirectory()) assert.equal(line, `${name}/`);
          else if (info.isSymbolicLink()) assert.equal(line, `${name} -> a/nowhere`);
          else assert.match(line, new RegExp(`\\(${info.size} bytes?\\)|KiB`));
        });
      }
    }),
    { numRuns: RUNS, ...conformanceSeed() },
  );
  console.log(`list_dir conformance: ${cases} listings`);
});
