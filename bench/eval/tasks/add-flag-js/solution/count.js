const { readFileSync } = require("node:fs");
const args = process.argv.slice(2);
const words = args.includes("--words");
const file = args.find((a) => a !== "--words");
const text = readFileSync(file, "utf8");
if (words) {
  console.log(text.split(/\s+/).filter(Boolean).length);
} else {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  console.log(lines.length);
}
