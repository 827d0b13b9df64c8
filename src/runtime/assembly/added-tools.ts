import type { Tool } from "../../tools/index.ts";
import type { NexConfig } from "../config/index.ts";
import type { Extensions } from "../extensions/index.ts";
import type { CurrentModel, NexSession } from "../session/index.ts";
import { askModel, type loadSubagents } from "../subagents/index.ts";
import { webTools } from "../web/index.ts";
import { extraTools } from "./tool-sources.ts";

/** What the added tools are built from; `session` is the session they will serve, once built. */
export interface AddedToolInputs {
  config: NexConfig;
  env: Record<string, string | undefined>;
  extensions: Extensions;
  subagents: Awaited<ReturnType<typeof loadSubagents>>;
  /** The window the session has now (/model and a 400 can change it). */
  window: () => number;
  current: CurrentModel;
  session: () => NexSession;
}

/** The tools beyond the built-in ones: the workspace's, the extensions', the sub-agents' and the web's. */
export async function addedTools(inputs: AddedToolInputs): Promise<Tool[]> {
  const { config, env, extensions, subagents, current, session } = inputs;
  return [
    ...(await extraTools({ workspace: config.workspace })),
    ...extensions.tools,
    ...subagents.tools,
    ...webTools({
      config,
      env,
      window: () => inputs.window(),
      summarize: async (input, signal) =>
        (await import("../context/index.ts")).summarizeForQuestion(input, signal, {
          stream: () => current.stream,
          model: () => current.model,
          emit: (event) => session().emit(event),
          nextRequestId: () => session().nextRequestId(),
        }),
      ask: (system, prompt, ctx) =>
        askModel(subagents.subagents, "deep_research", ctx, system, prompt),
    }),
  ];
}
