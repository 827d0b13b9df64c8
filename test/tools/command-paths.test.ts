import assert from "node:assert/strict";
import { test } from "node:test";
import { namedPaths } from "../../src/tools/command-line/command-paths.ts";
import { keyOfBytes } from "../../src/tools/files/path-key.ts";

const root = "/w";

test("a command names its operands, redirection targets, globs and folders, followed through cd", async () => {
  const cases: Array<[string, string[], string[]]> = [
    ["sleep 2; echo x > a", ["a"], ["b", "2x"]],
    [
      "mv src src.old && ln -s /elsewhere src",
      ["src", "src/main.ts", "src.old/main.ts"],
      ["lib/x"],
    ],
    ["sed -i 's/a/b/' src/*.ts", ["src/a.ts"], ["src/a.js", "lib/a.ts"]],
    ["cd pkg && touch new.txt", ["pkg/new.txt"], ["new.txt"]],
    ["rm -f {a,b}.log", ["a.log", "b.log"], ["c.log"]],
    ["npx prettier --write .", ["anything/at/all"], []],
    ["git checkout main", ["any.ts"], []],
    ["python3 gen.py", ["gen.py"], ["out.txt"]],
    ['cp "$SRC" out', ["out"], ["src"]],
  ];
  for (const [command, named, unnamed] of cases) {
    const names = await namedPaths(command, root);
    for (const path of named) assert.equal(names(path), true, `${command} names ${path}`);
    for (const path of unnamed)
      assert.equal(names(path), false, `${command} does not name ${path}`);
  }
});

test("a glob names a file whose name is not UTF-8", async () => {
  const key = keyOfBytes(Buffer.from([0xff, ...Buffer.from(".bin")]));
  assert.equal((await namedPaths("rm -- *.bin", root))(key), true);
  assert.equal((await namedPaths("rm -- *.txt", root))(key), false);
});
