import assert from "node:assert/strict";
import { test } from "node:test";
import {
  commandName,
  findStarts,
  gitSubcommand,
  scanWords,
} from "../../src/tools/command-line/command-words.ts";

test("a command's words sort into operands, short flags and long options; `--` ends the options", () => {
  const scan = scanWords(["rm", "-rf", "--no-preserve-root", "a", "-", "--", "-b", "--c=d"]);
  assert.deepEqual(scan.operands, ["a", "-", "-b", "--c=d"]);
  assert.deepEqual([...scan.shortFlags].sort(), ["f", "r"]);
  assert.deepEqual([...scan.longOptions], ["--no-preserve-root"]);
  assert.deepEqual([...scanWords(["git", "gc", "--prune=now"]).longOptions], ["--prune"]);
});

test("the program a word runs: its base name, backslashes dropped", () => {
  assert.equal(commandName("/usr/bin/git"), "git");
  assert.equal(commandName("\\rm"), "rm");
  assert.equal(commandName("r\\m"), "rm");
});

test("git's subcommand comes after git's own options, -C and -c taking a value", () => {
  assert.deepEqual(gitSubcommand(["git", "-C", "dir", "-c", "a=b", "--no-pager", "push"]), {
    sub: "push",
    at: 6,
  });
  assert.deepEqual(gitSubcommand(["git"]), { sub: undefined, at: 1 });
});

test("find starts where its paths are, `.` when it names none", () => {
  assert.deepEqual(findStarts(["find", "a", "b", "-name", "x", "-delete"]), ["a", "b"]);
  assert.deepEqual(findStarts(["find", "-delete"]), ["."]);
  assert.deepEqual(findStarts(["find", "(", "-name", "x", ")"]), ["."]);
});
