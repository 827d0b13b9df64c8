import { join } from "node:path";
import type { UndoResult } from "../../protocol/index.ts";
import { acquireSessionLock, listSessions } from "../../session/index.ts";
import { loadUndo, type UndoPreviewStep } from "../../tools/index.ts";
import { type ConfigFlags, resolveConfig } from "../config/index.ts";
import { locateSession } from "./locate-session.ts";
import { ownSessionsOnly } from "./own-sessions.ts";
import { undoResultOf } from "./undo-result.ts";

/** What `nex undo` did (or, with `list`, would do), for the CLI to word. */
export type UndoSessionAnswer =
  | {
      kind: "undo";
      /** The session undone; null when none in this workspace has changes to undo. */
      sessionId: string | null;
      /** True when the session was chosen as the last one that changed files here. */
      chosen: boolean;
      /** A notice from taking over the session's lock (its holder had died), or null. */
      lockNotice: string | null;
      result: UndoResult;
    }
  | {
      kind: "preview";
      sessionId: string;
      chosen: boolean;
      text: string;
      /** The same steps, newest first, for `nex undo --list --json`. */
      steps: UndoPreviewStep[];
    };

/**
 * `nex undo`: restores the workspace of a session to before its last `turns` prompts (or, with
 * `list`, says what each step would restore). Without a session id it takes the session that last
 * changed files in this workspace, not merely the last one opened.
 */
export async function undoSession(
  flags: ConfigFlags,
  env: Record<string, string | undefined>,
  cwd: string,
  id: string,
  turns: number,
  options: { list?: boolean; includeUnsure?: boolean } = {},
): Promise<UndoSessionAnswer> {
  const config = resolveConfig(flags, env, cwd);
  const { describePreview, lastChangedSession, previewUndo, undoWorkspace } = await loadUndo();
  const checkpointDirOf = (sessionId: string) => join(config.dataDir, "checkpoints", sessionId);
  let found: { workspace: string; sessionId: string; journalPath: string };
  const chosen = id === "last";
  if (chosen) {
    // Only this user's own sessions: one a repository shipped would restore what it chose.
    const sessions = ownSessionsOnly(
      env,
      config,
      await listSessions(config.dataDir, { workspace: config.workspace }),
    );
    const changed = await lastChangedSession(sessions, checkpointDirOf);
    if (!changed) {
      const report =
        sessions.length === 0
          ? `Nothing to undo: no saved session for ${config.workspace}.`
          : `Nothing to undo: no session recorded file changes in ${config.workspace} that are not undone yet.`;
      return { kind: "undo", sessionId: null, chosen, lockNotice: null, result: nothing(report) };
    }
    found = changed;
  } else found = await locateSession(config, id, true, env);
  const common = {
    workspace: found.workspace,
    checkpointDir: checkpointDirOf(found.sessionId),
    privatePaths: [config.dataDir],
  };
  if (options.list) {
    const steps = await previewUndo(common);
    return {
      kind: "preview",
      sessionId: found.sessionId,
      chosen,
      text: describePreview(steps),
      steps,
    };
  }
  // A running nex on this session would go on changing the files undo restores.
  const lock = acquireSessionLock(found.journalPath, found.sessionId);
  try {
    const report = await undoWorkspace({
      ...common,
      turns,
      ...(options.includeUnsure ? { includeUnsure: true } : {}),
    });
    return {
      kind: "undo",
      sessionId: found.sessionId,
      chosen,
      lockNotice: lock.notice ?? null,
      result: undoResultOf(report),
    };
  } finally {
    lock.release();
  }
}

function nothing(report: string): UndoResult {
  return {
    kind: "nothing",
    prompts: [],
    turns: [],
    restored: [],
    leftAlone: [],
    failed: [],
    notes: [],
    report,
  };
}
