import type { Tone } from "../tool-view.ts";

/** Ink `<Text>` props for a tone. */
export function toneProps(tone: Tone): { color?: string; dimColor?: boolean; bold?: boolean } {
  switch (tone) {
    case "plain":
      return {};
    case "dim":
      return { dimColor: true };
    case "good":
      return { color: "green" };
    case "bad":
      return { color: "red" };
    case "warn":
      return { color: "yellow" };
    case "added":
      return { color: "green" };
    case "removed":
      return { color: "red" };
    case "hunk":
      return { color: "cyan", dimColor: true };
  }
}
