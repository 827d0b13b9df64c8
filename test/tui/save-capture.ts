// Writes a screen a test reached to test/tui/captures/ so reviewers can look at what the user saw:
// NEX_CAPTURES=1 writes <name>.txt; NEX_CAPTURES=before or =after writes <name>.before.txt or
// <name>.after.txt (before: run on the code before a fix). A normal test run leaves the captures alone.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function saveCapture(name: string, screen: string): void {
  const label = process.env.NEX_CAPTURES;
  if (!label) return;
  const dir = join(import.meta.dirname, "captures");
  mkdirSync(dir, { recursive: true });
  const suffix = label === "1" ? "" : `.${label}`;
  writeFileSync(join(dir, `${name}${suffix}.txt`), `${screen.trimEnd()}\n`);
}
