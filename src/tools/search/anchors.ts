// Where grep's `^` may stand in a sequence. ripgrep 13's regex misses a `^` that follows another
// assertion at the same place (`$^` finds no empty line, `\b^` only the first line of a file), while
// the pattern means the same with the `^` first: assertions at one position commute. So a run of
// zero-width pieces is written with those that can start with `^` first, and what cannot be
// reordered that way is refused with what to write instead.

/** What one piece of a pattern can do where it starts and ends, for placing `^`. */
export interface Shape {
  /** Matches only the empty string: assertions and groups of them. */
  zeroWidth: boolean;
  /** Can match the empty string. */
  nullable: boolean;
  /** Can check `^` before consuming anything. */
  leadingCaret: boolean;
  /** Can check an assertion other than `^` after consuming everything it consumes. */
  trailingAssertion: boolean;
}

export const CONSUMING: Shape = {
  zeroWidth: false,
  nullable: false,
  leadingCaret: false,
  trailingAssertion: false,
};
export const ASSERTION: Shape = {
  zeroWidth: true,
  nullable: true,
  leadingCaret: false,
  trailingAssertion: true,
};
export const CARET: Shape = { ...ASSERTION, leadingCaret: true, trailingAssertion: false };

/** A piece under a quantifier: `{0,…}`, `*` and `?` may match nothing. */
export function repeated(shape: Shape, quantifier: string): Shape {
  const optional = /^(?:[*?]|\{0[,}])/.test(quantifier);
  return { ...shape, nullable: shape.nullable || optional };
}

/** A group's branches. */
export function branches(shapes: Shape[]): Shape {
  return {
    zeroWidth: shapes.every((s) => s.zeroWidth),
    nullable: shapes.some((s) => s.nullable),
    leadingCaret: shapes.some((s) => s.leadingCaret),
    trailingAssertion: shapes.some((s) => s.trailingAssertion),
  };
}

/** The shape of pieces one after another. */
export function sequenceShape(items: Shape[]): Shape {
  const nullableBefore = (i: number): boolean => items.slice(0, i).every((s) => s.nullable);
  const nullableAfter = (i: number): boolean => items.slice(i + 1).every((s) => s.nullable);
  return {
    zeroWidth: items.every((s) => s.zeroWidth),
    nullable: items.every((s) => s.nullable),
    leadingCaret: items.some((s, i) => s.leadingCaret && nullableBefore(i)),
    trailingAssertion: items.some((s, i) => s.trailingAssertion && nullableAfter(i)),
  };
}

/**
 * The pieces of a sequence with `^` moved before the assertions just ahead of it; `refuse` gets the
 * reason when an assertion would still come right before a `^`.
 */
export function orderAnchors<T extends { shape: Shape }>(
  items: T[],
  refuse: (reason: string) => never,
): T[] {
  const out: T[] = [];
  let run: T[] = [];
  const flush = (): void => {
    out.push(
      ...run.filter((p) => p.shape.leadingCaret),
      ...run.filter((p) => !p.shape.leadingCaret),
    );
    run = [];
  };
  for (const item of items) {
    if (item.shape.zeroWidth) run.push(item);
    else {
      flush();
      out.push(item);
    }
  }
  flush();
  for (let i = 0; i < out.length; i += 1) {
    if (!out[i]?.shape.leadingCaret) continue;
    for (let j = i - 1; j >= 0; j -= 1) {
      const before = out[j]?.shape as Shape;
      if (before.trailingAssertion)
        refuse(
          "a `^` that can come right after another assertion (`$`, `\\b`, `\\B`) through a group, which ripgrep reads wrongly; put each `^` at the start of its branch, before any other assertion",
        );
      if (!before.nullable) break;
    }
  }
  return out;
}
