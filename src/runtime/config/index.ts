// `--output-schema`'s schema is compiled by the program's one JSON Schema validator (tools/schema/):
// the layers above reach it here.
export { compileJsonSchema, type Validate } from "../../tools/index.ts";
export type { ConfigFlags, EffortOrOff, NexConfig, ProviderKind } from "./config.ts";
export { ConfigError, configFilePath, defaultConfigPath, resolveConfig } from "./config.ts";
export { prepareDataDir } from "./data-dir.ts";
export {
  createClient,
  endpointFetch,
  limitsFor,
  unreachableMessage,
  wireFormatOf,
} from "./endpoint-client.ts";
export type { FirstRunChoice } from "./first-run.ts";
export type { ResolvedLimits } from "./model-registry.ts";
export { acceptsImages } from "./model-registry.ts";
export type { Price } from "./prices.ts";
export { priceFor, usageLine } from "./prices.ts";
export { projectSandboxNotices } from "./project-sandbox.ts";
export { createReasoningControl } from "./reasoning-control.ts";

// Loaded on first use: most sessions never need these (ARCHITECTURE.md, "loads when first used").
type FirstRunModule = typeof import("./first-run.ts");
export const modelsAt = async (...args: Parameters<FirstRunModule["modelsAt"]>) =>
  (await import("./first-run.ts")).modelsAt(...args);
export const unconfiguredConfigPath = async (
  ...args: Parameters<FirstRunModule["unconfiguredConfigPath"]>
) => (await import("./first-run.ts")).unconfiguredConfigPath(...args);
export const writeFirstRunConfig = async (
  ...args: Parameters<FirstRunModule["writeFirstRunConfig"]>
) => (await import("./first-run.ts")).writeFirstRunConfig(...args);
type SavedApprovalsModule = typeof import("./saved-approvals.ts");
export const saveApprovalLine = async (
  ...args: Parameters<SavedApprovalsModule["saveApprovalLine"]>
) => (await import("./saved-approvals.ts")).saveApprovalLine(...args);
type ServedModelsModule = typeof import("./served-models.ts");
export const describeServed = async (...args: Parameters<ServedModelsModule["describeServed"]>) =>
  (await import("./served-models.ts")).describeServed(...args);
export const servedModels = async (...args: Parameters<ServedModelsModule["servedModels"]>) =>
  (await import("./served-models.ts")).servedModels(...args);
