import { resultCapForWindow, type WorkspaceToolHost } from "../../tools/index.ts";
import {
  acceptsImages,
  type createReasoningControl,
  defaultConfigPath,
  type NexConfig,
} from "../config/index.ts";
import { consentPlace, realPathOf } from "../consent/index.ts";
import type { createSessionBudget } from "../context/index.ts";
import { type Extensions, expandPrompt } from "../extensions/index.ts";
import { ownSessionsOnly } from "../history/index.ts";
import type { CurrentModel, SessionParts } from "../session/index.ts";

type Env = Record<string, string | undefined>;
type Budget = ReturnType<typeof createSessionBudget>;

/** A prompt's `/command` and `@file` expanded, attachments sized to the current window. */
export function promptExpander(
  config: NexConfig,
  env: Env,
  extensions: Extensions,
  budget: Budget,
  current: CurrentModel,
  announce: (message: string) => void,
): SessionParts["expand"] {
  return (prompt, run) =>
    expandPrompt(prompt, extensions.commands, {
      workspace: config.workspace,
      allowedPaths: config.allowedPaths,
      privatePaths: [config.dataDir],
      // Attachments may take twice a tool result's share of the window.
      attachLimit: 2 * resultCapForWindow(budget.window()),
      run,
      consent: consentPlace({
        env,
        workspace: config.workspace,
        writable: config.sandbox.writable ?? [],
      }),
      announce,
      model: current.model,
      acceptsImages: acceptsImages(current.model, config.models[current.model]),
    });
}

/** The tools as the session sees them: undo answered in words, an approval saved to the config. */
export function sessionToolHost(
  host: Omit<SessionParts["tools"], "undo" | "saveApproval"> & Pick<WorkspaceToolHost, "undo">,
  config: NexConfig,
  env: Env,
  savableRules: WorkspaceToolHost["savableRules"],
): SessionParts["tools"] {
  return {
    ...host,
    undo: async (turns) =>
      (await import("../history/index.ts")).undoResultOf(await host.undo(turns)),
    saveApproval: async (call) =>
      (await import("../config/index.ts")).saveApprovalLine(
        config.configPath ?? defaultConfigPath(env),
        // Keyed by the workspace's real path, as every grant is.
        realPathOf(config.workspace),
        call.name.startsWith("mcp__") ? { rules: [call.name] } : await savableRules(call),
      ),
  };
}

/** Listing sessions, reasoning effort and models for the session's commands. */
export function sessionCommands(
  config: NexConfig,
  env: Env,
  current: CurrentModel,
  budget: Budget,
  reasoning: ReturnType<typeof createReasoningControl>,
): Pick<
  SessionParts,
  "listSessions" | "setReasoning" | "listModels" | "modelChoices" | "switchModel"
> {
  return {
    // Sessions are per workspace: another project's opens only when asked for by its id, from there;
    // where a repository could ship journals, only the sessions nex started for this user are listed.
    listSessions: async (scope) =>
      ownSessionsOnly(
        env,
        config,
        await (await import("../history/index.ts")).summariesIn(
          config.dataDir,
          scope === "all" ? undefined : config.workspace,
        ),
      ),
    setReasoning: (effort) =>
      effort === null ? reasoning.describe(current.model) : reasoning.set(effort, current.model),
    listModels: async () => {
      const { describeServed, servedModels } = await import("../config/index.ts");
      return describeServed(await servedModels(config), current.model);
    },
    modelChoices: async () => (await import("../session/index.ts")).modelChoices(config, current),
    switchModel: async (asked) =>
      (await (await import("../session/index.ts")).modelSwitcher(config, current, budget))(asked),
  };
}
