/**
 * A JSON-like value with `change` applied to every string in it. Unchanged parts are shared, not
 * copied, so a value with nothing to change comes back as itself.
 */
export function mapStrings<T>(value: T, change: (text: string) => string): T {
  return walk(value, change) as T;
}

// Every event and journal record passes here, most with nothing to change: a part is copied only
// once one of its strings changed, and no key/value pairs are built to look at it (the walk's own
// allocations were most of a session's redaction cost).
function walk(v: unknown, change: (text: string) => string): unknown {
  if (typeof v === "string") return change(v);
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      const next = walk(item, change);
      if (next !== item) {
        out ??= v.slice();
        out[i] = next;
      }
    }
    return out ?? v;
  }
  const record = v as Record<string, unknown>;
  let out: Record<string, unknown> | null = null;
  for (const key of Object.keys(record)) {
    const item = record[key];
    const next = walk(item, change);
    if (next !== item) {
      out ??= { ...record };
      out[key] = next;
    }
  }
  return out ?? v;
}
