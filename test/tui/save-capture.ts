// Writes a screen a test reached to test/tui/captures/<name>.txt when NEX_CAPTURES=1, so reviewers can
// look at what the user saw; a normal test run leaves the committed captures alone.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function saveCapture(name: string, screen: string): void {
  if (process.env.NEX_CAPTURES !== "1") return;
  const dir = join(import.meta.dirname, "captures");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.txt`), `${screen.trimEnd()}\n`);
}
