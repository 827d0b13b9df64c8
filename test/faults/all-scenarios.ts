// Every fault scenario, in the order the table prints them.
import type { FaultScenario } from "./scenario.ts";
import { anthropicScenarios } from "./scenarios-anthropic.ts";
import { commandScenarios } from "./scenarios-commands.ts";
import { edgeScenarios } from "./scenarios-edge.ts";
import { endpointWordScenarios } from "./scenarios-endpoint-word.ts";
import { fieldScenarios } from "./scenarios-field.ts";
import { fileScenarios } from "./scenarios-files.ts";
import { imageScenarios } from "./scenarios-images.ts";
import { limitScenarios } from "./scenarios-limits.ts";
import { mcpScenarios } from "./scenarios-mcp.ts";
import { openaiScenarios } from "./scenarios-openai.ts";
import { processScenarios } from "./scenarios-process.ts";
import { sandboxScenarios } from "./scenarios-sandbox.ts";
import { secretScenarios } from "./scenarios-secrets.ts";
import { serverScenarios } from "./scenarios-servers.ts";
import { smallWindowScenarios } from "./scenarios-small-window.ts";
import { stallScenarios } from "./scenarios-stalls.ts";
import { subagentScenarios } from "./scenarios-subagents.ts";
import { undoScenarios } from "./scenarios-undo.ts";
import { webScenarios } from "./scenarios-web.ts";
import { windowScenarios } from "./scenarios-windows.ts";
import { wireScenarios } from "./scenarios-wire.ts";

export const allScenarios: FaultScenario[] = [
  ...openaiScenarios,
  ...anthropicScenarios,
  ...fieldScenarios,
  ...edgeScenarios,
  ...commandScenarios,
  ...undoScenarios,
  ...stallScenarios,
  ...limitScenarios,
  ...wireScenarios,
  ...sandboxScenarios,
  ...fileScenarios,
  ...secretScenarios,
  ...smallWindowScenarios,
  ...windowScenarios,
  ...processScenarios,
  ...endpointWordScenarios,
  ...serverScenarios,
  ...webScenarios,
  ...mcpScenarios,
  ...subagentScenarios,
  ...imageScenarios,
];
