export { compactSession } from "./compact-session.ts";
export type { OpenedSession, OpenOptions } from "./open-session.ts";
export { listSessionsFor, openSession } from "./open-session.ts";
