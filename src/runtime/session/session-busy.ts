// The CLI reports a session held by another nex as a refused start; it imports the error from here
// (the runtime layer) rather than reaching into `session/`.
export { SessionBusyError } from "../../session/session-lock.ts";
