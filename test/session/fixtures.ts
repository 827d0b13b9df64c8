import type { Message } from "../../src/protocol/index.ts";
import { scratchDir } from "../support/scratch-dir.ts";

/** A fresh temporary directory. */
export function tempDir(prefix = "nex-session-"): string {
  return scratchDir(prefix);
}

/** A deterministic pseudo-random generator (mulberry32), so synthetic journals are reproducible. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS =
  "the function returns a value when called with two arguments and we check that the test passes before writing the file again".split(
    " ",
  );

/** Plausible prose of about `words` words. */
export function prose(random: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(random() * WORDS.length)] as string);
  return out.join(" ");
}

/**
 * A synthetic conversation of exactly `count` messages: user prompts, assistant turns with 1-2 tool calls
 * and their results, some large (big write_file contents, long outputs).
 */
export function conversation(count: number, seed = 1): Message[] {
  const random = rng(seed);
  const out: Message[] = [];
  let call = 0;
  while (out.length < count) {
    out.push({ type: "user", text: `Please ${prose(random, 8 + Math.floor(random() * 30))}.` });
    const turns = 1 + Math.floor(random() * 4);
    for (let t = 0; t < turns && out.length < count; t++) {
      const calls = 1 + Math.floor(random() * 2);
      const toolCalls = Array.from({ length: calls }, () => {
        call += 1;
        const big = random() < 0.15;
        const content = big ? `BIGCONTENT-${call}-${prose(random, 900)}` : prose(random, 20);
        return {
          id: `call_${call}`,
          name: "write_file",
          argumentsText: JSON.stringify({ path: `src/file${call}.ts`, content }),
        };
      });
      out.push({ type: "assistant", text: prose(random, 10), toolCalls });
      for (const c of toolCalls) {
        const long = random() < 0.1;
        out.push({
          type: "tool_result",
          toolCallId: c.id,
          toolName: c.name,
          isError: false,
          content: long ? `OUTPUT ${prose(random, 1500)}` : `wrote ${c.argumentsText.length} bytes`,
        });
      }
    }
    if (out.length < count) out.push({ type: "assistant", text: prose(random, 25), toolCalls: [] });
  }
  // End on a complete exchange (no call without its result), then pad with plain text to `count`.
  let end = count;
  while (end > 0 && (out[end]?.type === "tool_result" || out[end - 1]?.type === "assistant")) end--;
  const padded = out.slice(0, end);
  while (padded.length < count) {
    padded.push(
      padded.length % 2 === 0
        ? { type: "user", text: "ok, go on" }
        : { type: "assistant", text: "Done.", toolCalls: [] },
    );
  }
  return padded;
}
