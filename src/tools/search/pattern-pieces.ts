// The building blocks grep's pattern translation writes with: the escapes, classes and Unicode
// properties both engines read the same way, and the piece each part of a pattern becomes.

import type { Shape } from "./anchors.ts";

/** Why a pattern cannot mean the same in both engines (the message says what to write instead). */
export class Unsupported extends Error {}

const WORD_PARTS = "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}";
export const JS_WORD = `[${WORD_PARTS}]`;
/**
 * The JavaScript search reads a byte that is not UTF-8 as one of these lone surrogates (no UTF-8 text
 * decodes to one): every "any character but" form excludes them, since nothing in Rust's regex
 * matches an invalid byte.
 */
export const INVALID_BYTES = "\\u{DC80}-\\u{DCFF}";
export const PLAIN_INVALID = "\\uDC80-\\uDCFF";
export const JS_NOT_WORD = `[^${WORD_PARTS}${INVALID_BYTES}]`;
export const notIn = (inner: string): string => `[^${inner}${INVALID_BYTES}]`;

// Rust's POSIX classes are ASCII-only: code point ranges.
export const POSIX: Record<string, [number, number][]> = {
  alnum: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  alpha: [
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  ascii: [[0x00, 0x7f]],
  blank: [
    [0x09, 0x09],
    [0x20, 0x20],
  ],
  cntrl: [
    [0x00, 0x1f],
    [0x7f, 0x7f],
  ],
  digit: [[0x30, 0x39]],
  graph: [[0x21, 0x7e]],
  lower: [[0x61, 0x7a]],
  print: [[0x20, 0x7e]],
  punct: [
    [0x21, 0x2f],
    [0x3a, 0x40],
    [0x5b, 0x60],
    [0x7b, 0x7e],
  ],
  space: [
    [0x09, 0x0d],
    [0x20, 0x20],
  ],
  upper: [[0x41, 0x5a]],
  word: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x61, 0x7a],
    [0x5f, 0x5f],
  ],
  xdigit: [
    [0x30, 0x39],
    [0x41, 0x46],
    [0x61, 0x66],
  ],
};

export const GENERAL_CATEGORIES = new Set(
  "L Lu Ll Lt Lm Lo M Mn Mc Me N Nd Nl No P Pc Pd Ps Pe Pi Pf Po S Sm Sc Sk So Z Zs Zl Zp C Cc Cf Co".split(
    " ",
  ),
);
export const BINARY_PROPERTIES = new Set(["Alphabetic", "White_Space", "Uppercase", "Lowercase"]);

const hex = (cp: number): string => cp.toString(16).toUpperCase();
/** One code point as each engine's escape: valid inside and outside classes in both. */
export const literal = (cp: number): { rust: string; js: string; plain: string } => {
  const ch = String.fromCodePoint(cp);
  if (/[0-9A-Za-z_]/.test(ch)) return { rust: ch, js: ch, plain: ch };
  const unit = (u: number): string => `\\u${u.toString(16).toUpperCase().padStart(4, "0")}`;
  return {
    rust: `\\x{${hex(cp)}}`,
    js: `\\u{${hex(cp)}}`,
    plain: cp > 0xffff ? `(?:${unit(ch.charCodeAt(0))}${unit(ch.charCodeAt(1))})` : unit(cp),
  };
};
/** Any code point but a line break, as UTF-16 units: a surrogate pair or one unit. */
export const PLAIN_ANY = "[\\uD800-\\uDBFF][\\uDC00-\\uDFFF]";

export interface Piece {
  rust: string;
  js: string;
  /**
   * The same for a RegExp without the `u`/`v` flags, or null when that cannot be written: only there
   * can V8 switch a catastrophic pattern to its linear-time engine.
   */
  plain: string | null;
  /** False for assertions (`^`, `\b`): a quantifier after one is refused. */
  repeatable: boolean;
  /** Where it can meet `^` (anchors.ts). */
  shape: Shape;
}
