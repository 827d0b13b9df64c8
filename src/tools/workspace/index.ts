// The workspace guard (where a path lands: inside, an allowed folder, or refused) and nex's own files
// read without following a link planted in their place. Small and loaded at start-up by the
// configuration and consent readers; the rest of file safety (../files/) loads at the first call.
export { type OwnFileRead, readOwnFile, readWorkspaceOwnFile } from "./own-file.ts";
export {
  climbsOut,
  createWorkspace,
  isWithin,
  type ResolvedPath,
  type Workspace,
} from "./workspace.ts";
