// Every fault scenario, in the order the table prints them.
import type { FaultScenario } from "./scenario.ts";
import { anthropicScenarios } from "./scenarios-anthropic.ts";
import { commandScenarios } from "./scenarios-commands.ts";
import { edgeScenarios } from "./scenarios-edge.ts";
import { fieldScenarios } from "./scenarios-field.ts";
import { fileScenarios } from "./scenarios-files.ts";
import { limitScenarios } from "./scenarios-limits.ts";
import { openaiScenarios } from "./scenarios-openai.ts";
import { sandboxScenarios } from "./scenarios-sandbox.ts";
import { secretScenarios } from "./scenarios-secrets.ts";
import { serverScenarios } from "./scenarios-servers.ts";
import { stallScenarios } from "./scenarios-stalls.ts";
import { wireScenarios } from "./scenarios-wire.ts";

export const allScenarios: FaultScenario[] = [
  ...openaiScenarios,
  ...anthropicScenarios,
  ...fieldScenarios,
  ...edgeScenarios,
  ...commandScenarios,
  ...stallScenarios,
  ...limitScenarios,
  ...wireScenarios,
  ...sandboxScenarios,
  ...fileScenarios,
  ...secretScenarios,
  ...serverScenarios,
];
