// grep's one regex dialect: the model's pattern is read once, by this parser, and written out twice,
// for ripgrep's Rust regex and for V8's `v`-flag RegExp, with the same meaning in both. What the two
// engines would read differently is translated (`\d`, `\w`, `\s` and `\b` are Unicode-aware in Rust,
// ASCII in V8; `.` matches `\r` in Rust only; `\/` is an error in ripgrep 13) and what one of them
// lacks (lookaround, backreferences, class set operations) is refused with what to write instead, so
// both backends find the same lines or both refuse.

import { ToolFailure } from "../tool-failure.ts";
import {
  ASSERTION,
  branches as branchesShape,
  CARET,
  CONSUMING,
  orderAnchors,
  repeated,
  sequenceShape,
} from "./anchors.ts";
import {
  BINARY_PROPERTIES,
  GENERAL_CATEGORIES,
  INVALID_BYTES,
  JS_NOT_WORD,
  JS_WORD,
  literal,
  notIn,
  type Piece,
  PLAIN_ANY,
  PLAIN_INVALID,
  POSIX,
  Unsupported,
} from "./pattern-pieces.ts";

export { INVALID_BYTES } from "./pattern-pieces.ts";

/** A pattern both engines read the same way. */
export interface SearchPattern {
  /** For ripgrep (`-e`). */
  rust: string;
  /** For `new RegExp(js, flags)`. */
  js: string;
  flags: string;
  /** Whether a `^` was written before assertions that came ahead of it (the same meaning). */
  movedAnchors: boolean;
}

/** Reads one pattern; throws Unsupported with the reason for what cannot mean the same in both engines. */
class Parser {
  private at = 0;
  private groups = new Set<string>();
  movedAnchors = false;
  private readonly src: string;
  constructor(src: string) {
    this.src = src;
  }

  private peek(offset = 0): string {
    const cp = this.src.codePointAt(this.indexAfter(offset));
    return cp === undefined ? "" : String.fromCodePoint(cp);
  }
  private indexAfter(count: number): number {
    let i = this.at;
    for (let k = 0; k < count && i < this.src.length; k++)
      i += (this.src.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
    return i;
  }
  private next(): string {
    const ch = this.peek();
    this.at += ch.length;
    return ch;
  }
  private eat(text: string): boolean {
    if (!this.src.startsWith(text, this.at)) return false;
    this.at += text.length;
    return true;
  }
  private done(): boolean {
    return this.at >= this.src.length;
  }

  parse(): Piece {
    const piece = this.alternation();
    if (!this.done()) throw new Unsupported("an unmatched `)`; escape it as `\\)` to match it");
    return piece;
  }

  private alternation(): Piece {
    const branches = [this.sequence()];
    while (this.eat("|")) branches.push(this.sequence());
    return {
      rust: branches.map((b) => b.rust).join("|"),
      js: branches.map((b) => b.js).join("|"),
      plain: branches.some((b) => b.plain === null) ? null : branches.map((b) => b.plain).join("|"),
      repeatable: true,
      shape: branchesShape(branches.map((b) => b.shape)),
    };
  }

  private sequence(): Piece {
    const items: Piece[] = [];
    while (!this.done() && this.peek() !== "|" && this.peek() !== ")") {
      const atom = this.atom();
      const quantifier = this.quantifier();
      if (quantifier !== null) {
        if (!atom.repeatable)
          throw new Unsupported("a repetition after an anchor or word boundary");
        if (this.quantifier() !== null)
          throw new Unsupported(
            "two repetitions in a row (such as `a**`); group the first: `(?:a*)*`",
          );
        items.push({
          rust: `(?:${atom.rust})${quantifier}`,
          js: `(?:${atom.js})${quantifier}`,
          plain: atom.plain === null ? null : `(?:${atom.plain})${quantifier}`,
          repeatable: true,
          shape: repeated(atom.shape, quantifier),
        });
      } else items.push(atom);
    }
    const ordered = orderAnchors(items, (reason) => {
      throw new Unsupported(reason);
    });
    if (ordered.some((p, i) => p !== items[i])) this.movedAnchors = true;
    return {
      rust: ordered.map((p) => p.rust).join(""),
      js: ordered.map((p) => p.js).join(""),
      plain: ordered.some((p) => p.plain === null) ? null : ordered.map((p) => p.plain).join(""),
      repeatable: true,
      shape: sequenceShape(ordered.map((p) => p.shape)),
    };
  }

  private quantifier(): string | null {
    let q: string | null = null;
    const ch = this.peek();
    if (ch === "*" || ch === "+" || ch === "?") {
      this.next();
      q = ch;
    } else if (ch === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.at));
      if (!m)
        throw new Unsupported(
          "a `{` that is not a repetition such as `{2}`, `{2,}` or `{2,5}`; escape it as `\\{` to match it",
        );
      const min = Number(m[1]);
      const max = m[3] ? Number(m[3]) : null;
      if (min > 1000 || (max !== null && max > 1000))
        throw new Unsupported("a repetition count over 1000");
      if (max !== null && max < min)
        throw new Unsupported(`the repetition ${m[0]} (max below min)`);
      this.at += m[0].length;
      q = `{${min}${m[2] ? `,${max ?? ""}` : ""}}`;
    }
    if (q !== null && this.eat("?")) q += "?";
    return q;
  }

  private atom(): Piece {
    const ch = this.next();
    switch (ch) {
      case ".":
        return {
          rust: ".",
          js: notIn("\\n"),
          plain: `(?:${PLAIN_ANY}|[^\\n${PLAIN_INVALID}])`,
          repeatable: true,
          shape: CONSUMING,
        };
      case "^":
        return { rust: "^", js: "^", plain: "^", repeatable: false, shape: CARET };
      case "$":
        return { rust: "$", js: "$", plain: "$", repeatable: false, shape: ASSERTION };
      case "(":
        return this.group();
      case "[":
        return this.charClass();
      case "\\":
        return this.escape(false);
      case "*":
      case "+":
      case "?":
        throw new Unsupported(
          `a \`${ch}\` with nothing before it to repeat; escape it as \`\\${ch}\``,
        );
      case "{":
        throw new Unsupported("a `{` with nothing before it; escape it as `\\{` to match it");
      default: {
        const cp = ch.codePointAt(0) ?? 0;
        if (cp === 10) throw new Unsupported("a line break: grep matches within one line");
        return { ...literal(cp), repeatable: true, shape: CONSUMING };
      }
    }
  }

  private group(): Piece {
    let rustOpen = "(";
    let jsOpen = "(";
    if (this.eat("?")) {
      const named = /^P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(this.src.slice(this.at));
      if (named?.[1]) {
        if (this.groups.has(named[1])) throw new Unsupported(`two groups named ${named[1]}`);
        this.groups.add(named[1]);
        this.at += named[0].length;
        rustOpen = `(?P<${named[1]}>`;
        jsOpen = `(?<${named[1]}>`;
      } else if (this.eat(":")) {
        rustOpen = "(?:";
        jsOpen = "(?:";
      } else if (/^(<?[=!])/.test(this.src.slice(this.at))) {
        throw new Unsupported(
          "lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`), which ripgrep's regex lacks; search for the text itself and read the lines around it",
        );
      } else {
        throw new Unsupported(
          "an inline flag group such as `(?s)` or `(?x)`; only a leading `(?i)` is understood (or set ignore_case)",
        );
      }
    }
    const inner = this.alternation();
    if (!this.eat(")")) throw new Unsupported("an unclosed `(`");
    return {
      rust: `${rustOpen}${inner.rust})`,
      js: `${jsOpen}${inner.js})`,
      plain: inner.plain === null ? null : `${jsOpen}${inner.plain})`,
      repeatable: true,
      shape: inner.shape,
    };
  }

  /** An escape after `\`; `inClass` allows only what stands for characters. */
  private escape(inClass: boolean): Piece {
    const ch = this.next();
    if (ch === "") throw new Unsupported("a `\\` at the end");
    const simple: Record<string, [string, string]> = {
      d: ["\\d", "\\p{Nd}"],
      D: ["\\D", notIn("\\p{Nd}")],
      s: ["\\s", "\\p{White_Space}"],
      S: ["\\S", notIn("\\p{White_Space}")],
      w: ["\\w", JS_WORD],
      W: ["\\W", JS_NOT_WORD],
    };
    const mapped = simple[ch];
    if (mapped)
      return { rust: mapped[0], js: mapped[1], plain: null, repeatable: true, shape: CONSUMING };
    const controls: Record<string, number> = { t: 9, r: 13, f: 12, v: 11, a: 7 };
    const control = controls[ch];
    if (control !== undefined) return { ...literal(control), repeatable: true, shape: CONSUMING };
    if (ch === "n") throw new Unsupported("`\\n`: grep matches within one line");
    if (!inClass) {
      if (ch === "b")
        return {
          rust: "\\b",
          js: `(?:(?<=${JS_WORD})(?!${JS_WORD})|(?<!${JS_WORD})(?=${JS_WORD}))`,
          plain: null,
          repeatable: false,
          shape: ASSERTION,
        };
      if (ch === "B")
        return {
          rust: "\\B",
          js: `(?:(?<=${JS_WORD})(?=${JS_WORD})|(?<!${JS_WORD})(?!${JS_WORD}))`,
          plain: null,
          repeatable: false,
          shape: ASSERTION,
        };
      if (ch === "A") return { rust: "^", js: "^", plain: "^", repeatable: false, shape: CARET };
      if (ch === "z")
        return { rust: "$", js: "$", plain: "$", repeatable: false, shape: ASSERTION };
    }
    if (ch === "x" || ch === "u" || ch === "U") {
      const sizes: Record<string, number> = { x: 2, u: 4, U: 8 };
      const m = /^(?:\{([0-9A-Fa-f]{1,8})\}|([0-9A-Fa-f]+))/.exec(this.src.slice(this.at));
      const digits = m?.[1] ?? m?.[2]?.slice(0, sizes[ch]);
      if (!m || !digits || (m[2] !== undefined && digits.length !== sizes[ch]))
        throw new Unsupported(`the escape \\${ch} without its hex digits`);
      const cp = Number.parseInt(digits, 16);
      if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        throw new Unsupported(`\\${ch}${digits}, which is not a Unicode scalar value`);
      if (cp === 10) throw new Unsupported("a line break: grep matches within one line");
      this.at += m[1] !== undefined ? m[0].length : digits.length;
      return { ...literal(cp), repeatable: true, shape: CONSUMING };
    }
    if (ch === "p" || ch === "P") return this.property(ch === "P");
    const cp = ch.codePointAt(0) ?? 0;
    if (cp < 128 && /[^0-9A-Za-z\s]/.test(ch))
      return { ...literal(cp), repeatable: true, shape: CONSUMING };
    if (/[1-9]/.test(ch))
      throw new Unsupported("a backreference (`\\1`), which ripgrep's regex lacks");
    throw new Unsupported(`the escape \\${ch}`);
  }

  private property(negated: boolean): Piece {
    let name: string;
    if (this.eat("{")) {
      const end = this.src.indexOf("}", this.at);
      if (end === -1) throw new Unsupported("an unclosed `\\p{`");
      name = this.src.slice(this.at, end);
      this.at = end + 1;
    } else name = this.next();
    const p = negated ? "P" : "p";
    const js = (property: string): string =>
      negated ? notIn(`\\p{${property}}`) : `\\p{${property}}`;
    if (GENERAL_CATEGORIES.has(name) || BINARY_PROPERTIES.has(name))
      return {
        rust: `\\${p}{${name}}`,
        js: js(name),
        plain: null,
        repeatable: true,
        shape: CONSUMING,
      };
    if (/^[A-Z][a-z]+(_[A-Z][a-z]+)*$/.test(name)) {
      try {
        new RegExp(`\\p{Script_Extensions=${name}}`, "v");
        // A bare script name in Rust's regex means its Script_Extensions.
        return {
          rust: `\\${p}{${name}}`,
          js: js(`Script_Extensions=${name}`),
          plain: null,
          repeatable: true,
          shape: CONSUMING,
        };
      } catch {
        // not a script
      }
    }
    throw new Unsupported(
      `the property \\${p}{${name}}; use a general category (\\p{L}, \\p{Lu}, \\p{Nd}…), a script (\\p{Greek}) or Alphabetic, White_Space, Uppercase, Lowercase`,
    );
  }

  private charClass(): Piece {
    const negated = this.eat("^");
    const rust: string[] = [];
    const js: string[] = [];
    const plain: string[] = [];
    let plainOk = true;
    let first = true;
    for (;;) {
      if (this.done()) throw new Unsupported("an unclosed `[`");
      if (this.peek() === "]" && !first) {
        this.next();
        break;
      }
      if (this.src.startsWith("[:", this.at)) {
        const m = /^\[:(\^?)([a-z]+):\]/.exec(this.src.slice(this.at));
        const set = m ? POSIX[m[2] ?? ""] : undefined;
        if (!m || set === undefined) throw new Unsupported("a nested class or unknown `[:name:]`");
        this.at += m[0].length;
        rust.push(m[0]);
        js.push(
          `[${m[1]}${set.map(([lo, hi]) => `${literal(lo).js}-${literal(hi).js}`).join("")}${m[1] ? INVALID_BYTES : ""}]`,
        );
        if (m[1]) plainOk = false;
        else
          plain.push(set.map(([lo, hi]) => `${literal(lo).plain}-${literal(hi).plain}`).join(""));
        first = false;
        continue;
      }
      if (
        this.peek() === "[" ||
        this.src.startsWith("&&", this.at) ||
        this.src.startsWith("~~", this.at) ||
        (this.src.startsWith("--", this.at) && !first)
      )
        throw new Unsupported(
          "a nested class or class operation (`[`, `&&`, `--`, `~~` inside `[...]`); escape the character to match it",
        );
      const start = this.classItem(first);
      first = false;
      if (this.peek() === "-" && this.peek(1) !== "]" && this.peek(1) !== "") {
        this.next();
        if (start.cp === null)
          throw new Unsupported(
            "a range that starts at a class such as `\\w`; escape the `-` as `\\-`",
          );
        const end = this.classItem(false);
        if (end.cp === null || end.cp < start.cp)
          throw new Unsupported("a range with a bad end; escape the `-` as `\\-` to match it");
        rust.push(`${literal(start.cp).rust}-${literal(end.cp).rust}`);
        js.push(`${literal(start.cp).js}-${literal(end.cp).js}`);
        if (end.cp > 0xffff) plainOk = false;
        else plain.push(`${literal(start.cp).plain}-${literal(end.cp).plain}`);
        continue;
      }
      rust.push(start.rust);
      js.push(start.js);
      if (start.cp === null || start.cp > 0xffff) plainOk = false;
      else plain.push(literal(start.cp).plain);
    }
    const hat = negated ? "^" : "";
    // Without `u`, a negated class would match half of a surrogate pair: the pair is matched whole first.
    const plainClass = !plainOk
      ? null
      : negated
        ? `(?:${PLAIN_ANY}|[^${plain.join("")}\\n${PLAIN_INVALID}])`
        : `[${plain.join("")}]`;
    return {
      rust: `[${hat}${rust.join("")}]`,
      js: `[${hat}${js.join("")}${negated ? INVALID_BYTES : ""}]`,
      plain: plainClass,
      repeatable: true,
      shape: CONSUMING,
    };
  }

  private classItem(first: boolean): { rust: string; js: string; cp: number | null } {
    const ch = this.next();
    if (ch === "\\") {
      const before = this.at;
      const piece = this.escape(true);
      const text = this.src.slice(before, this.at);
      const single = /^[dDsSwWpP]/.test(text) ? null : this.literalOf(piece);
      return { rust: piece.rust, js: piece.js, cp: single };
    }
    if (ch === "\n") throw new Unsupported("a line break: grep matches within one line");
    if (ch === "]" && !first) throw new Unsupported("an empty class");
    const cp = ch.codePointAt(0) ?? 0;
    const { rust, js } = literal(cp);
    return { rust, js, cp };
  }

  private literalOf(piece: Piece): number | null {
    const m = /^\\u\{([0-9A-F]+)\}$/.exec(piece.js);
    if (m?.[1]) return Number.parseInt(m[1], 16);
    return [...piece.js].length === 1 ? (piece.js.codePointAt(0) ?? null) : null;
  }
}

/**
 * Reads the model's pattern as ripgrep's Rust regex would and writes it for both engines; a pattern
 * they would read differently, or one of them cannot, is refused with what to write instead.
 */
export function translatePattern(pattern: string, ignoreCase: boolean): SearchPattern {
  let body = pattern;
  let caseless = ignoreCase;
  if (body.startsWith("(?i)")) {
    body = body.slice(4);
    caseless = true;
  }
  let piece: Piece;
  const parser = new Parser(body);
  try {
    piece = parser.parse();
  } catch (error) {
    if (!(error instanceof Unsupported)) throw error;
    throw new ToolFailure(
      "invalid_arguments",
      `The pattern ${JSON.stringify(pattern)} uses ${error.message}. grep reads ripgrep's regex syntax (Rust); fix the pattern and search again.`,
    );
  }
  // Without `u`/`v`, V8 can fall back to its linear-time engine; case folding needs `v` to match Rust's.
  const plain = piece.plain !== null && !caseless;
  const js = plain ? (piece.plain as string) : piece.js;
  const flags = plain ? "" : caseless ? "iv" : "v";
  try {
    new RegExp(js, flags);
  } catch (error) {
    throw new ToolFailure(
      "invalid_arguments",
      `The pattern ${JSON.stringify(pattern)} is not a valid regular expression: ${(error as Error).message}. Fix it and search again.`,
    );
  }
  return {
    rust: caseless ? `(?i)${piece.rust}` : piece.rust,
    js,
    flags,
    movedAnchors: parser.movedAnchors,
  };
}
