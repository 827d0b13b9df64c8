// The user's consent (docs/trust-model.md): the one store of approvals of a project's MCP servers,
// hooks and commands, what an approval hashes, and which paths are a repository's or a sandboxed
// command's to write (what lies there grants nothing).
export { approvalHash, approvedCode } from "./approved-code.ts";
export { unconfinedReason } from "./confinement.ts";
export {
  approvedHash,
  type ConsentPlace,
  consentDir,
  consentPlace,
  hasConsent,
  recordConsent,
} from "./consent-store.ts";
export { commandWritable, realPathOf } from "./writable-by-commands.ts";
