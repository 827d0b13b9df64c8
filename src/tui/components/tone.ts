import type { Tone } from "./tool-view.ts";

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

/** Ink `<Text>` props for a line of a unified diff. */
export function diffTone(line: string): { color?: string; dimColor?: boolean; bold?: boolean } {
  if (line.startsWith("--- ") || line.startsWith("+++ ")) return { bold: true };
  if (line.startsWith("@@")) return { color: "cyan" };
  if (line.startsWith("+")) return { color: "green" };
  if (line.startsWith("-")) return { color: "red" };
  return { dimColor: true };
}
