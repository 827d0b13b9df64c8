// Content and set-ups the scenarios share: file bodies, model limits, journals, links out of the workspace.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createJournal } from "../../src/session/index.ts";
import { conversation } from "../session/fixtures.ts";
import type { Sandbox } from "../support/cli.ts";
import type { Script } from "../support/stub-endpoint.ts";
import { MODEL } from "./fault-runner.ts";
import type { Wire } from "./scenario.ts";

/** A 40-line Rust file, long enough that a cut lands mid-string. */
export const rustMain = 'fn main() {\n    println!("hello, world");\n}\n'.repeat(40);

/** A 200-line settings file (seed 004's victim). */
export const settingsPy = [
  "# settings.py: the application's configuration",
  "DEBUG = True",
  ...Array.from({ length: 198 }, (_, i) => `OPTION_${i + 1} = ${i * 7}  # keep`),
  "",
].join("\n");

/** Text with multi-byte characters in every line (split across chunks in transit). */
export const multibyte = Array.from(
  { length: 30 },
  (_, i) => `línea ${i}: naïve café — 日本語テキスト 🚀🧪 ∑∫ ${"é".repeat(i % 5)}`,
).join("\n");

/** A context-length error as vLLM / OpenAI word it. */
export const contextLengthError: Script = {
  type: "reply",
  status: 400,
  body: {
    error: {
      message:
        "This model's maximum context length is 16384 tokens. However, you requested 40000 tokens.",
      code: "context_length_exceeded",
    },
  },
};

/** Writes a config that gives the scenario's model these limits. */
export function withLimits(
  box: Sandbox,
  wire: Wire,
  limits: { contextWindow: number; maxOutput?: number },
  extra: Record<string, unknown> = {},
): void {
  const dir = join(box.env.XDG_CONFIG_HOME ?? "", "nex");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({ models: { [MODEL[wire]]: { maxOutput: 2048, ...limits } }, ...extra }),
  );
}

/** Leaves a journal of `count` synthetic messages for the workspace, as an earlier session did. */
export async function seedJournal(box: Sandbox, wire: Wire, count: number): Promise<void> {
  const journal = await createJournal(join(box.dataDir, "nex"), {
    workspace: box.workspace,
    provider: wire,
    model: MODEL[wire],
    baseUrl: "http://127.0.0.1:1/v1",
  });
  for (const message of conversation(count)) journal.appendMessage(message);
  journal.close();
}

/** The directory beside the workspace that scenarios try to escape to. */
export function outside(box: Sandbox): string {
  return join(box.workspace, "..", "outside");
}

/** `outside/` with a precious file, and links to both from inside the workspace. */
export function linkOut(box: Sandbox): void {
  const dir = outside(box);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "precious.txt"), "precious\n");
  symlinkSync(dir, join(box.workspace, "link-dir"));
  symlinkSync(join(dir, "precious.txt"), join(box.workspace, "link-file.txt"));
}
