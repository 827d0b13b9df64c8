// Temporary folders for tests, removed when the test file's process exits: a suite run makes more
// than a thousand of them, and a machine that runs it often would otherwise fill its temp dir.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];

process.on("exit", () => {
  for (const dir of made) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
    } catch {
      // A child the test left running may still hold it; the OS temp dir's own cleanup takes it.
    }
  }
});

/** A fresh folder named `prefix` + random letters under `parent` (the OS temp dir by default). */
export function scratchDir(prefix: string, parent: string = tmpdir()): string {
  const dir = mkdtempSync(join(parent, prefix));
  made.push(dir);
  return dir;
}
