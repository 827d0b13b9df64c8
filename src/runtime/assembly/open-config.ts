import { existsSync } from "node:fs";
import type { AgentEvent } from "../../protocol/index.ts";
import { fetchModelList } from "../../providers/index.ts";
import {
  ConfigError,
  type ConfigFlags,
  endpointFetch,
  type NexConfig,
  projectSandboxNotices,
  resolveConfig,
  unreachableMessage,
} from "../config/index.ts";
import { locateSession } from "../history/index.ts";

/** The session a resume continues, as the catalog found it. */
export type ResumedSession = Awaited<ReturnType<typeof locateSession>>;

/** The configuration a session opens with: flags, environment and config file, then the resumed session's workspace and model. */
export interface SessionConfig {
  config: NexConfig;
  model: string;
  resumed: ResumedSession | null;
}

/** Step 1: what to open: configuration, the session to resume (if any), and the model. */
export async function resolveSessionConfig(
  flags: ConfigFlags,
  env: Record<string, string | undefined>,
  cwd: string,
  resume: string | null,
  events: AgentEvent[],
  sessionName?: string,
): Promise<SessionConfig> {
  let config = resolveConfig(flags, env, cwd);
  for (const message of config.notices) events.push({ type: "notice", message });
  // A caller's stable name (`--session-id`) resumes the session it names, when there is one.
  const named = sessionName
    ? await (await import("../history/index.ts")).namedSession(config.dataDir, sessionName)
    : null;
  const resumeId = resume ?? named;
  const resumed = resumeId
    ? await locateSession(config, resumeId, flags.cwd !== undefined && !named, env)
    : null;
  if (resumed) {
    config = {
      ...config,
      workspace: flags.cwd ? config.workspace : resumed.workspace,
      model: config.model ?? resumed.model,
    };
    if (!existsSync(config.workspace)) {
      throw new ConfigError(
        `Session ${resumed.sessionId} worked in ${config.workspace}, which no longer exists. Pass --cwd DIR to continue it in another directory.`,
      );
    }
  }
  for (const message of projectSandboxNotices(config.workspace))
    events.push({ type: "notice", message });
  const model = config.model ?? (await onlyModel(config, events));
  if (!model) {
    throw new ConfigError(
      "No model given. Pass --model NAME (or set NEX_MODEL, or `model` in the config file).",
    );
  }
  return { config, model, resumed };
}

/**
 * With no model given, a server that serves exactly one (llama.cpp, a single vLLM model) is asked
 * which; several are listed in the error so the user can pick.
 */
async function onlyModel(config: NexConfig, events: AgentEvent[]): Promise<string | null> {
  const answer = await fetchModelList({
    fetch: endpointFetch(config),
    baseUrl: config.baseUrl,
    kind: config.provider,
    timeoutMs: 1500,
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
  });
  if (answer.type === "unreachable") {
    throw new ConfigError(
      `${unreachableMessage(config, answer.message.replace(/^\S+: /, ""))} No model was given, and nex could not ask which the endpoint serves: pass --model NAME once it is up.`,
    );
  }
  const models = answer.type === "answered" ? answer.models : null;
  if (!models || models.length === 0) return null;
  const [only] = models;
  if (models.length === 1 && only) {
    events.push({
      type: "notice",
      message: `No model given; using ${only}, the only model the endpoint serves.`,
    });
    return only;
  }
  const shown = models.slice(0, 12).join(", ");
  throw new ConfigError(
    `No model given, and the endpoint serves ${models.length}: ${shown}${models.length > 12 ? ", ..." : ""}. Pass one with --model NAME (or set NEX_MODEL).`,
  );
}
