// The user approves a project's hooks by what they run, not only by their command text: a hook such
// as `./scripts/check.sh` or `sh "$CLAUDE_PROJECT_DIR"/.claude/hooks/p.sh` runs whatever the script
// holds (and whatever it sources), and a pull that changes any of it must need a new approval.
import { approvedCode } from "../consent/index.ts";

/**
 * The files inside the workspace that a hook command executes (see `approved-code.ts`), each with a
 * digest of its content: what approving the hook approves besides its text.
 */
export function hookScripts(command: string, workspace: string): [string, string][] {
  return approvedCode([command], workspace);
}
