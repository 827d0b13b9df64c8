// The chat's first run with no endpoint configured: four short questions (which server, its base
// URL, the variable that holds the key, a model from the endpoint's list), written to the config
// file, instead of an error. Headless runs never ask: they keep their clear error.
import { createInterface } from "node:readline/promises";
import type { ProviderKind } from "../runtime/config/index.ts";
import { type FirstRunChoice, modelsAt, writeFirstRunConfig } from "../runtime/config/index.ts";

interface ServerKind {
  label: string;
  provider: ProviderKind;
  baseUrl: string;
  keyEnv: string;
}

const KINDS: ServerKind[] = [
  {
    label: "a server on this machine or network (vLLM, llama.cpp, Ollama, LM Studio, ...)",
    provider: "openai",
    baseUrl: "http://127.0.0.1:8000/v1",
    keyEnv: "OPENAI_API_KEY",
  },
  {
    label: "OpenAI",
    provider: "openai",
    baseUrl: "https://api.openai.com/v1",
    keyEnv: "OPENAI_API_KEY",
  },
  {
    label: "OpenRouter",
    provider: "openai",
    baseUrl: "https://openrouter.ai/api/v1",
    keyEnv: "OPENROUTER_API_KEY",
  },
  {
    label: "Anthropic",
    provider: "anthropic",
    baseUrl: "https://api.anthropic.com",
    keyEnv: "ANTHROPIC_API_KEY",
  },
];

type Env = Record<string, string | undefined>;

/** Asks, writes `configPath`, and says where; false when the user left (Ctrl-D / Ctrl-C) before the end. */
export async function runFirstRunSetup(configPath: string, env: Env): Promise<boolean> {
  const out = process.stdout;
  const rl = createInterface({ input: process.stdin, output: out, terminal: true });
  const closed = new Promise<null>((resolve) => rl.once("close", () => resolve(null)));
  const ask = async (question: string, fallback: string): Promise<string | null> => {
    const shown = fallback ? `${question} [${fallback}] ` : `${question} `;
    const answer = await Promise.race([rl.question(shown), closed]);
    if (answer === null) return null;
    return answer.trim() || fallback;
  };
  try {
    out.write(
      "nex is not set up yet: no endpoint is configured. Four questions, then the chat opens.\n" +
        `(The answers go to ${configPath}; keys stay in environment variables and are never written.)\n\n`,
    );
    const kind = await chooseKind(ask, out);
    if (!kind) return false;
    const baseUrl = await askUrl(ask, out, kind.baseUrl);
    if (!baseUrl) return false;
    const keyEnv = await ask("Environment variable that holds the API key", kind.keyEnv);
    if (keyEnv === null) return false;
    const apiKey = env[keyEnv] || undefined;
    out.write(
      apiKey
        ? `  ${keyEnv} is set.\n`
        : `  ${keyEnv} is not set now${kind.baseUrl.startsWith("http://127.") ? " (a local server often needs none)" : `; set it before you chat: export ${keyEnv}=...`}.\n`,
    );
    const model = await chooseModel(ask, out, kind.provider, baseUrl, apiKey, keyEnv);
    if (!model) return false;
    const choice: FirstRunChoice = { provider: kind.provider, baseUrl, apiKeyEnv: keyEnv, model };
    await writeFirstRunConfig(configPath, choice);
    out.write(`\nSaved to ${configPath}. Change it there, or with --base-url / --model.\n\n`);
    return true;
  } finally {
    rl.close();
  }
}

type Ask = (question: string, fallback: string) => Promise<string | null>;
type Out = { write(text: string): unknown };

async function chooseKind(ask: Ask, out: Out): Promise<ServerKind | null> {
  out.write("Which server will nex talk to?\n");
  KINDS.forEach((kind, index) => {
    out.write(`  ${index + 1}. ${kind.label}\n`);
  });
  for (;;) {
    const answer = await ask("Number", "1");
    if (answer === null) return null;
    const kind = KINDS[Number(answer) - 1];
    if (kind && /^\d+$/.test(answer)) return kind;
    out.write(`  Type a number from 1 to ${KINDS.length}.\n`);
  }
}

async function askUrl(ask: Ask, out: Out, fallback: string): Promise<string | null> {
  for (;;) {
    const answer = await ask("Base URL", fallback);
    if (answer === null) return null;
    const url = URL.parse(answer);
    if (url && /^https?:$/.test(url.protocol) && !url.username && !url.password) {
      return answer.replace(/\/+$/, "");
    }
    out.write(
      "  That is not an http:// or https:// URL without credentials; type one like http://127.0.0.1:8000/v1.\n",
    );
  }
}

async function chooseModel(
  ask: Ask,
  out: Out,
  provider: ProviderKind,
  baseUrl: string,
  apiKey: string | undefined,
  keyEnv: string,
): Promise<string | null> {
  out.write(`Asking ${baseUrl} for its models...\n`);
  const listed = await modelsAt(provider, baseUrl, apiKey, keyEnv);
  if ("problem" in listed || listed.models.length === 0) {
    const why = "problem" in listed ? listed.problem : "it lists none";
    out.write(`  No model list (${why}). Type the model's name; you can change it later.\n`);
    for (;;) {
      const name = await ask("Model", "");
      if (name === null) return null;
      if (name) return name;
    }
  }
  const models = listed.models;
  const shown = models.slice(0, 30);
  shown.forEach((model, index) => {
    out.write(`  ${index + 1}. ${model}\n`);
  });
  if (models.length > shown.length) {
    out.write(
      `  ... and ${models.length - shown.length} more: type a name to pick one of those.\n`,
    );
  }
  for (;;) {
    const answer = await ask("Model (number or name)", "1");
    if (answer === null) return null;
    if (/^\d+$/.test(answer)) {
      const model = shown[Number(answer) - 1];
      if (model) return model;
      out.write(`  Type a number from 1 to ${shown.length}, or a name.\n`);
      continue;
    }
    return answer;
  }
}
