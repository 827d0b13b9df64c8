// Some models name a tool the way their chat template addresses it (`functions.write_file`,
// `default_api.read_file`), and some servers pass that on. The tool meant is not in doubt, so the
// prefix is dropped before anything looks at the call: permissions, dispatch and history alike.
const NAMESPACES = ["functions.", "function.", "tools.", "default_api."];

/** The session's own name for a tool the model named with a namespace; other names unchanged. */
export function canonicalToolName(name: string, known: readonly string[]): string {
  if (known.includes(name)) return name;
  for (const prefix of NAMESPACES) {
    const bare = name.startsWith(prefix) ? name.slice(prefix.length) : null;
    if (bare !== null && known.includes(bare)) return bare;
  }
  return name;
}
