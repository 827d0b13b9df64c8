// The real nex CLI with tools added the way an embedder (or the MCP client) adds them: through a
// tool source, under the one tool contract. `NEX_TEST_FILLER_TOOLS=n` adds n more deferred tools.
import { main } from "../../src/cli/main.ts";
import { addToolSource } from "../../src/runtime/assembly/tool-sources.ts";
import { defineJsonSchemaTool } from "../../src/tools/index.ts";

addToolSource(async () => {
  const ticket = await defineJsonSchemaTool({
    name: "lookup_ticket",
    description:
      "Looks up a ticket of the issue tracker by its number. Returns its title and state.",
    inputSchema: {
      type: "object",
      properties: { id: { type: "integer", minimum: 1 } },
      required: ["id"],
      additionalProperties: false,
    },
    mutates: false,
    deferred: true,
    execute: async (args) => ({
      isError: false,
      content: `Ticket ${String(args.id)}: "Crash on empty config" (open)`,
    }),
  });
  const throwing = await defineJsonSchemaTool({
    name: "flaky_probe",
    description: "Probes a service; it always fails here.",
    inputSchema: { type: "object", properties: {} },
    mutates: false,
    execute: async () => {
      throw new Error("probe exploded: connection reset");
    },
  });
  const fillers = await Promise.all(
    Array.from({ length: Number(process.env.NEX_TEST_FILLER_TOOLS ?? 0) }, (_, i) =>
      defineJsonSchemaTool({
        name: `filler_tool_${i}`,
        description: `Filler tool number ${i}. It takes a query and a limit and returns matching records.`,
        inputSchema: {
          type: "object",
          properties: { query: { type: "string" }, limit: { type: "integer" } },
          required: ["query"],
        },
        mutates: false,
        deferred: true,
        execute: async () => ({ isError: false, content: "none" }),
      }),
    ),
  );
  return [ticket, throwing, ...fillers];
});

process.exitCode = await main(process.argv.slice(2));
