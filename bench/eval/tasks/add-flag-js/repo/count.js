#!/usr/bin/env node
// Usage: node count.js FILE   prints how many lines FILE has.
const { readFileSync } = require("node:fs");

const file = process.argv[2];
if (!file) {
  console.error("usage: node count.js FILE");
  process.exit(2);
}
const text = readFileSync(file, "utf8");
const lines = text.split("\n");
if (lines[lines.length - 1] === "") lines.pop();
console.log(lines.length);
