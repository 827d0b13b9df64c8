// Every fault scenario, in the order the table prints them.
import type { FaultScenario } from "./scenario.ts";
import { openaiScenarios } from "./scenarios-openai.ts";

export const allScenarios: FaultScenario[] = [...openaiScenarios];
