// Strict parsing of tool-call argument text, with lossless recoveries only.
//
// Accepted: the text as JSON ("strict"); a markdown fence around a complete object ("fence");
// exactly one balanced, complete object in surrounding prose that holds no other bracket ("extracted").
// Refused: anything that would need bytes the model never sent (closing a string, bracket or brace),
// two candidate objects, or an object that sits inside an unclosed outer structure.
//
// Empty text is refused here; the verdict turns "" into {} only when every integrity signal of the
// turn is clean (many servers send "" for a tool without parameters).
import type { ArgumentRecovery } from "../../protocol/index.ts";
import { parseJson } from "../../protocol/json-text.ts";
import { balancedEnd, scanJson } from "./json-scan.ts";

/** The outcome of parsing argument text: a value and how it was obtained, or why it was refused. */
export type ArgumentParse =
  | { type: "parsed"; value: unknown; recovery: ArgumentRecovery }
  | { type: "refused"; why: string };

const fencePattern = /^\s*```[A-Za-z0-9_-]*[ \t]*\r?\n([\s\S]*?)\r?\n?[ \t]*```\s*$/;

/**
 * Deeper than any tool's parameters go. Past it the value is hostile or garbage, and every later
 * step that walks it (the journal, a display, JSON.stringify) would overflow the stack.
 */
export const MAX_ARGUMENT_DEPTH = 64;

export function parseToolArguments(text: string): ArgumentParse {
  if (text.trim() === "") return { type: "refused", why: "no argument text was received" };
  if (nestsDeeperThan(text, MAX_ARGUMENT_DEPTH)) {
    return {
      type: "refused",
      why: `the arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels, far beyond any tool's parameters`,
    };
  }
  const strict = tryParse(text);
  if (strict.ok) return { type: "parsed", value: strict.value, recovery: "strict" };

  const fence = fencePattern.exec(text);
  if (fence) {
    const inner = tryParse(fence[1] ?? "");
    if (inner.ok && isObject(inner.value)) {
      return { type: "parsed", value: inner.value, recovery: "fence" };
    }
  }

  const extraction = extractOne(text);
  if (extraction.type === "one") {
    return { type: "parsed", value: extraction.value, recovery: "extracted" };
  }
  if (extraction.type === "many") {
    return {
      type: "refused",
      why: "the text holds more than one JSON object, so it is not clear which one was meant",
    };
  }
  return { type: "refused", why: describeFailure(text, strict.error) };
}

/**
 * Whether brackets outside strings nest deeper than `limit`. Nesting needs an opening bracket per
 * level: a text with no more than `limit` of them (every tool call's arguments but a hostile one) is
 * answered by counting them natively, without walking a whole file's content a character at a time.
 */
function nestsDeeperThan(text: string, limit: number): boolean {
  let opening = 0;
  for (const bracket of ["{", "["]) {
    for (let at = text.indexOf(bracket); at >= 0; at = text.indexOf(bracket, at + 1)) {
      if (++opening > limit) return nestingDepth(text) > limit;
    }
  }
  return false;
}

/** The deepest bracket nesting outside strings, in one pass. */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}

/** True for a plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

type Extraction =
  | { type: "one"; value: Record<string, unknown> }
  | { type: "many" }
  | { type: "none" };

function extractOne(text: string): Extraction {
  const start = text.indexOf("{");
  if (start < 0) return { type: "none" };
  const end = balancedEnd(text, start);
  if (end < 0) return { type: "none" };
  const candidate = tryParse(text.slice(start, end));
  if (!candidate.ok || !isObject(candidate.value)) return { type: "none" };
  const rest = text.slice(0, start) + text.slice(end);
  if (!/[{}[\]]/.test(rest)) return { type: "one", value: candidate.value };
  return hasAnotherObject(text, end) ? { type: "many" } : { type: "none" };
}

function hasAnotherObject(text: string, from: number): boolean {
  let at = text.indexOf("{", from);
  while (at >= 0) {
    const end = balancedEnd(text, at);
    if (end > 0 && tryParse(text.slice(at, end)).ok) return true;
    at = text.indexOf("{", at + 1);
  }
  return false;
}

function describeFailure(text: string, error: string): string {
  const body = text.replace(/^\s*```[A-Za-z0-9_-]*[ \t]*\r?\n/, "");
  const scan = scanJson(body);
  if (!scan.malformed && (scan.inString || scan.openContainers > 0)) {
    const where = scan.openKey === null ? "" : ` while writing \`${scan.openKey}\``;
    const what = scan.inString
      ? "inside an unfinished string"
      : `with ${scan.openContainers} bracket${scan.openContainers === 1 ? "" : "s"} still open`;
    return `the JSON ends ${what}${where}: it was cut off before it was complete`;
  }
  return `it is not valid JSON (${error})`;
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: parseJson(text) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
