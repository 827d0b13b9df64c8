// A large paste shows in the prompt (and in the chat) as one short marker, `[pasted 240 lines]`,
// and is sent whole: the marker stands for the text until the prompt is submitted.

/** A paste of at least this many lines (or characters) is collapsed to a marker. */
export const COLLAPSE_LINES = 10;
export const COLLAPSE_CHARS = 2000;

/** Pasted texts by their marker. */
export type Pastes = Readonly<Record<string, string>>;

/** The marker for a paste, unique among `pastes`; null when the paste is small enough to show. */
export function pasteMarker(text: string, pastes: Pastes): string | null {
  const lines = text.split("\n").length;
  if (lines < COLLAPSE_LINES && text.length < COLLAPSE_CHARS) return null;
  const what = lines > 1 ? `${lines} lines` : `${formatCount(text.length)} characters`;
  let marker = `[pasted ${what}]`;
  for (let n = 2; marker in pastes; n++) marker = `[pasted ${what} #${n}]`;
  return marker;
}

/** `text` with every marker still in it replaced by its paste. */
export function expandPastes(text: string, pastes: Pastes): string {
  let out = text;
  for (const [marker, pasted] of Object.entries(pastes)) {
    out = out.split(marker).join(pasted);
  }
  return out;
}

import { formatCount } from "../../protocol/index.ts";
