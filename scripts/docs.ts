// `npm run docs`: writes the reference pages made from the code, so they never disagree with it:
// docs/commands.md (every command's help, as `nex COMMAND --help` prints it) and
// docs/config.schema.json (the config file's JSON Schema, for editors through "$schema").
// test/docs/docs.test.ts fails when a committed page differs from what this writes.
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { toJsonSchema } from "@valibot/to-json-schema";
import { HELP } from "../src/cli/args.ts";
import { COMMANDS, commandHelp } from "../src/cli/commands.ts";
import { ConfigFileSchema } from "../src/runtime/config/config.ts";

const docs = resolve(import.meta.dirname, "..", "docs");

/** docs/commands.md as the code says it. */
export function commandsPage(): string {
  const sections = Object.keys(COMMANDS).map(
    (name) => `## nex ${name}\n\n\`\`\`text\n${commandHelp(name)}\n\`\`\``,
  );
  return [
    "# Commands and flags",
    "",
    "Made from the code by `npm run docs`; `nex --help` and `nex COMMAND --help` print the same.",
    "A flag of another command is refused with the command it belongs to; a mistyped flag or command",
    "gets the near one. Shell completion: `source <(nex completion bash)` (or `zsh`; for fish,",
    "`nex completion fish > ~/.config/fish/completions/nex.fish`).",
    "",
    "```text",
    HELP,
    "```",
    "",
    sections.join("\n\n"),
    "",
  ].join("\n");
}

/** docs/config.schema.json as the code says it. */
export function configSchema(): string {
  const schema = toJsonSchema(ConfigFileSchema, { errorMode: "ignore" }) as Record<string, unknown>;
  return `${JSON.stringify(
    {
      ...schema,
      title: "nex configuration ($XDG_CONFIG_HOME/nex/config.json)",
    },
    null,
    2,
  )}\n`;
}

if (import.meta.main) {
  writeFileSync(join(docs, "commands.md"), commandsPage());
  writeFileSync(join(docs, "config.schema.json"), configSchema());
  process.stdout.write("docs/commands.md and docs/config.schema.json written.\n");
}
