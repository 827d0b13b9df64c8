/**
 * A JSON-like value with `change` applied to every string in it. Unchanged parts are shared, not
 * copied, so a value with nothing to change comes back as itself.
 */
export function mapStrings<T>(value: T, change: (text: string) => string): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return change(v);
    if (Array.isArray(v)) {
      const out = v.map(walk);
      return out.some((item, i) => item !== v[i]) ? out : v;
    }
    if (typeof v === "object" && v !== null) {
      let out: Record<string, unknown> | null = null;
      for (const [key, item] of Object.entries(v)) {
        const next = walk(item);
        if (next !== item) {
          out ??= { ...(v as Record<string, unknown>) };
          out[key] = next;
        }
      }
      return out ?? v;
    }
    return v;
  };
  return walk(value) as T;
}
