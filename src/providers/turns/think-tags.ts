// Reasoning written inside the answer as `<think>…</think>` (servers without a reasoning parser, some
// gateways) is split out of it. Only a tag that opens the response counts (that is where reasoning
// models put it; a `<think>` further on is the model writing about tags). Tags may arrive cut across
// chunks, so a possible partial tag is held back until the next piece decides it.

/** A piece of content, sorted. */
export interface ContentPiece {
  kind: "text" | "reasoning";
  text: string;
}

const OPENERS = ["<think>", "<thinking>"];

export interface ThinkSplitter {
  push(text: string): ContentPiece[];
  /** What is still held back, when the content ends. */
  end(): ContentPiece[];
}

export function createThinkSplitter(): ThinkSplitter {
  let state: "start" | "reasoning" | "text" = "start";
  let held = "";
  let closer = "";
  // After `</think>` with nothing yet behind it, the white space that starts the answer is dropped.
  let skipLeading = false;

  const step = (): ContentPiece[] => {
    const out: ContentPiece[] = [];
    for (;;) {
      if (state === "text") {
        if (held) out.push({ kind: "text", text: held });
        held = "";
        return out;
      }
      if (state === "start") {
        const trimmed = held.trimStart();
        const opener = OPENERS.find((tag) => trimmed.startsWith(tag));
        if (opener) {
          closer = `</${opener.slice(1)}`;
          held = trimmed.slice(opener.length);
          state = "reasoning";
          continue;
        }
        // Still possibly the start of an opener (or only white space so far): wait for more.
        if (trimmed === "" || OPENERS.some((tag) => tag.startsWith(trimmed))) return out;
        state = "text";
        continue;
      }
      const at = held.indexOf(closer);
      if (at >= 0) {
        if (at > 0) out.push({ kind: "reasoning", text: held.slice(0, at) });
        // The white space between the reasoning and the answer belongs to neither.
        held = held.slice(at + closer.length).replace(/^\s+/, "");
        state = "text";
        skipLeading = held === "";
        continue;
      }
      const keep = partialSuffix(held, closer);
      const emit = held.slice(0, held.length - keep);
      if (emit) out.push({ kind: "reasoning", text: emit });
      held = held.slice(held.length - keep);
      return out;
    }
  };

  return {
    push(text) {
      if (skipLeading) {
        text = text.replace(/^\s+/, "");
        if (text === "") return [];
        skipLeading = false;
      }
      held += text;
      return step();
    },
    end() {
      const rest = held;
      held = "";
      if (!rest) return [];
      return [{ kind: state === "reasoning" ? "reasoning" : "text", text: rest }];
    },
  };
}

/** The length of the longest end of `text` that is a proper start of `tag`. */
function partialSuffix(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) {
    if (text.endsWith(tag.slice(0, n))) return n;
  }
  return 0;
}
