export type { OpenedSession, OpenOptions } from "./open-session.ts";
export { listSessionsFor, openSession } from "./open-session.ts";

// Loaded on first use: most sessions never need these (ARCHITECTURE.md, "loads when first used").
type CompactSessionModule = typeof import("./compact-session.ts");
export const compactSession = async (...args: Parameters<CompactSessionModule["compactSession"]>) =>
  (await import("./compact-session.ts")).compactSession(...args);
