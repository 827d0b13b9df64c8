import type { WindowSource } from "../../protocol/index.ts";
import type { Price } from "./prices.ts";

/** What nex knows of a model's limits. */
export interface ModelLimits {
  contextWindow: number;
  /** The most output tokens the model may produce in one response. */
  maxOutput: number;
}

/** What the config file's `models` entry may say of a model: its limits and whether it takes images. */
export interface ModelSettings extends Partial<ModelLimits> {
  images?: boolean;
  price?: Price;
}

/** A model's limits and where the window figure came from. */
export interface ResolvedLimits extends ModelLimits {
  source: WindowSource;
  /** Plain words for the user, e.g. "from the endpoint (vLLM max_model_len)". */
  sourceDetail: string;
}

/** Unknown models get a conservative window: never 0, never 200k (peers that assume 128k+ never compact on local models). */
export const DEFAULT_CONTEXT_WINDOW = 32_768;

// Windows as commonly served. Local servers often run a model below its native window, so the
// endpoint's own figure (discovered at start) wins over these when it tells.
const BUILT_IN: Array<[RegExp, ModelLimits]> = [
  [/qwen3-coder/i, { contextWindow: 32_768, maxOutput: 8_192 }],
  [/qwen2\.5-coder/i, { contextWindow: 32_768, maxOutput: 8_192 }],
  [/qwen3/i, { contextWindow: 32_768, maxOutput: 8_192 }],
  [/claude-(opus|sonnet)-4|claude-.*-4-/i, { contextWindow: 200_000, maxOutput: 32_000 }],
  [/claude-3-5|claude-3-7/i, { contextWindow: 200_000, maxOutput: 8_192 }],
  [/claude-3-haiku/i, { contextWindow: 200_000, maxOutput: 4_096 }],
  [/gpt-4\.1/i, { contextWindow: 1_047_576, maxOutput: 32_768 }],
  [/gpt-4o/i, { contextWindow: 128_000, maxOutput: 16_384 }],
  [/gpt-5/i, { contextWindow: 400_000, maxOutput: 128_000 }],
  [/deepseek/i, { contextWindow: 65_536, maxOutput: 8_192 }],
  [/llama-?3/i, { contextWindow: 8_192, maxOutput: 4_096 }],
  [/gemma/i, { contextWindow: 8_192, maxOutput: 4_096 }],
  [/mistral|codestral|devstral/i, { contextWindow: 32_768, maxOutput: 8_192 }],
  [/gpt-oss/i, { contextWindow: 131_072, maxOutput: 16_384 }],
];

/** The built-in entry for a model name, if any. */
export function builtInLimits(model: string): ModelLimits | null {
  for (const [pattern, limits] of BUILT_IN) if (pattern.test(model)) return limits;
  return null;
}

/**
 * Resolves a model's limits: configuration first, then what the endpoint reported, then the
 * built-in table, then the conservative default. The source is kept so the UI can say it.
 */
export function resolveLimits(input: {
  model: string;
  configured?: Partial<ModelLimits> | undefined;
  discovered?: { contextWindow: number; source: string } | null | undefined;
}): ResolvedLimits {
  const builtIn = builtInLimits(input.model);
  const fallbackOutput = (window: number) =>
    Math.min(input.configured?.maxOutput ?? builtIn?.maxOutput ?? 8_192, Math.floor(window / 2));
  if (input.configured?.contextWindow) {
    const window = input.configured.contextWindow;
    return {
      contextWindow: window,
      maxOutput: fallbackOutput(window),
      source: "config",
      sourceDetail: "from your configuration",
    };
  }
  if (input.discovered && input.discovered.contextWindow > 0) {
    const window = input.discovered.contextWindow;
    return {
      contextWindow: window,
      maxOutput: fallbackOutput(window),
      source: "endpoint",
      sourceDetail: `from the endpoint (${input.discovered.source})`,
    };
  }
  if (builtIn) {
    return {
      ...builtIn,
      maxOutput: fallbackOutput(builtIn.contextWindow),
      source: "registry",
      sourceDetail: "from nex's built-in model table",
    };
  }
  return {
    contextWindow: DEFAULT_CONTEXT_WINDOW,
    maxOutput: fallbackOutput(DEFAULT_CONTEXT_WINDOW),
    source: "default",
    sourceDetail:
      "the endpoint did not say and nex's table does not know this model, so nex assumes a conservative 32k; set `models` in the config file if the server allows more",
  };
}

// Families served with vision. Names not listed (coders, DeepSeek, gpt-oss) are taken to read text
// only; `"images": true` (or false) under the model in the config file decides for any other.
const TAKES_IMAGES =
  /claude-(3|opus-4|sonnet-4|haiku-4|[a-z]+-4)|gpt-4o|gpt-4\.1|gpt-4-turbo|gpt-5|(^|[/:-])o[34](-|$)|gemini|gemma-?3|llava|bakllava|pixtral|mistral-(small|medium)-3|llama-?3\.2-vision|llama-?4|qwen[0-9.]*-?vl|minicpm-v|moondream|internvl|vision/i;

/** Whether a model takes images: the config file's word first, else nex's list of vision families. */
export function acceptsImages(model: string, configured?: ModelSettings): boolean {
  return configured?.images ?? TAKES_IMAGES.test(model);
}
