// `nex doctor`: checks an endpoint the way a user needs before trusting it, with the configuration
// `nex run` would use. A bounded number of requests: one model list, the window discovery GETs, three
// tiny model requests, two sharing a long prefix (does the server reuse it?), and Ollama's own two
// when the server may be Ollama; each under the normal retry policy, nothing more, every one counted.
import { fetchModelList, hostOf } from "../../providers/index.ts";
import {
  createCommandSandbox,
  describeNetwork,
  describeSearch,
  networkMode,
  probeSandbox,
} from "../../tools/index.ts";
import { privateKind } from "../../web/index.ts";
import { type ConfigFlags, resolveConfig } from "../config/index.ts";
import {
  check,
  judgeKeyFromList,
  judgeModel,
  judgeReachable,
  judgeSandbox,
  timed,
} from "./doctor-checks.ts";
import { probeEndpoint } from "./doctor-probes.ts";
import { createDoctorRecorder, type DoctorOptions, type DoctorReport } from "./doctor-recorder.ts";

export type { CheckId, CheckStatus, DoctorCheck } from "./doctor-checks.ts";
export type { DoctorOptions, DoctorReport, DoctorTarget } from "./doctor-recorder.ts";

// Time for the model list: long enough for a cold server, short enough for a dead one.
const LIST_TIMEOUT_MS = 10_000;

/** Runs the checks in order. Throws ConfigError for a configuration `nex run` would refuse too. */
export async function runDoctor(
  flags: ConfigFlags,
  env: Record<string, string | undefined>,
  cwd: string,
  options: DoctorOptions,
): Promise<DoctorReport> {
  const config = resolveConfig(flags, env, cwd);
  const rec = createDoctorRecorder(config, options);
  const { counted, emit, skipRest, interrupted, report } = rec;
  options.onStart?.({ provider: config.provider, baseUrl: config.baseUrl, model: rec.model });
  const sandbox = createCommandSandbox(
    config.workspace,
    { ...config.sandbox, addressKind: privateKind },
    {
      platform: process.platform,
      path: env.PATH,
      uid: process.getuid?.() ?? -1,
      home: env.HOME,
    },
  );
  const sandboxProbe = await probeSandbox(sandbox, config.workspace, env);
  const state = sandbox.state();
  const network = describeNetwork(
    networkMode(config.sandbox, state.type === "active" ? state.backend : null),
  );
  emit(judgeSandbox(config.sandbox.mode, network, sandboxProbe));
  // grep and glob answer the same with either backend; which one runs is still worth knowing.
  emit(check("search", "pass", await describeSearch(config.workspace, env)));

  const listStarted = performance.now();
  const list = await fetchModelList({
    baseUrl: config.baseUrl,
    kind: config.provider,
    keyName: config.apiKeyEnv,
    timeoutMs: LIST_TIMEOUT_MS,
    signal: options.signal,
    fetch: counted,
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
  });
  if (list.type === "aborted") return interrupted();
  emit(timed(judgeReachable(list), performance.now() - listStarted));
  if (list.type === "unreachable") {
    skipRest(`skipped: ${hostOf(config.baseUrl)} is not reachable`);
    return report();
  }
  const keySet = config.apiKey !== null;
  const keyCheck = judgeKeyFromList(list, config.apiKeyEnv, keySet);
  if (keyCheck) emit(keyCheck);
  if (keyCheck?.status === "fail") {
    skipRest("skipped: the key was refused");
    return report();
  }
  const choice = judgeModel(list.models, rec.model, list.status);
  const model = choice.model;
  rec.model = model;
  if (keyCheck) emit(choice.check);
  if (model === null) {
    if (!keyCheck)
      emit(check("key", "skip", "not known: no model to send a request to"), choice.check);
    skipRest("skipped: no model to check");
    return report();
  }

  return probeEndpoint(config, rec, model, keyCheck, choice.check, options);
}
