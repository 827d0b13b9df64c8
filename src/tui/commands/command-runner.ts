import { writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import {
  describeCompact,
  describeUndo,
  type PermissionMode,
  plainText,
} from "../../protocol/index.ts";
import type { RewindPoint } from "../../runtime/history/index.ts";
import type { AgentSession, SessionSummary } from "../../runtime/session/index.ts";
import { addEntry, type UiStore } from "../state/index.ts";
import { type Command, helpWith, nextMode } from "./commands.ts";
import { modelListCommand, switchModel } from "./model-command.ts";
import type { ModelPickerState } from "./model-picker.ts";
import { rewindCommand } from "./rewind-command.ts";
import { statusText, transcriptMarkdown } from "./session-views.ts";

/** What a command may do to the TUI around it. */
export interface CommandContext {
  session: AgentSession;
  store: UiStore;
  exit(): void;
  /** Clears the terminal and the chat after the session starts afresh. */
  clearScreen(): void;
  /** Switches the permission mode (the session confirms it with a notice). */
  setMode(mode: PermissionMode): void;
  mode: PermissionMode;
  /** Shows the session picker; absent where the chat cannot switch sessions. */
  openPicker?(sessions: SessionSummary[]): void;
  /** Leaves this session for another, in place; absent where the chat cannot switch sessions. */
  switchTo?(sessionId: string, line?: string): void;
  /** Shows the `/rewind` picker; absent where the chat has none. */
  openRewind?(points: RewindPoint[]): void;
  /** Shows the `/model` picker; absent where the chat has none. */
  openModels?(state: ModelPickerState): void;
  /** Puts text in the input box (a rewound prompt). */
  setDraft?(text: string): void;
}

function say(
  store: UiStore,
  text: string,
  tone: "plain" | "dim" | "warn" | "good" | "diff" = "plain",
  table = false,
): void {
  store.update((state) =>
    addEntry(state, { type: "info", text, tone, ...(table ? { table } : {}) }),
  );
}

function sessionTable(sessions: SessionSummary[]): string {
  if (sessions.length === 0) return "No saved sessions in this workspace yet.";
  const rows = sessions.map((s) => {
    const last = (s.firstPrompt || s.lastMessage).replace(/\s+/g, " ");
    const preview = last.length > 50 ? `${last.slice(0, 49)}…` : last;
    return `${s.sessionId}  ${s.startedAt}  ${String(s.messages).padStart(4)} msgs  ${preview}`;
  });
  return [...rows, "", "Resume one with: nex resume <id>"].join("\n");
}

/** Why the chat does not move to another project's session, and how to open it there. */
function otherProject(found: SessionSummary): string {
  return `Session ${found.sessionId} belongs to another project (${found.workspace}); this chat stays in its own workspace. To continue that session there: cd ${shellQuote(found.workspace)} && nex resume ${found.sessionId}`;
}

function shellQuote(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;
}

/** Finds a session by its id or a unique prefix of it. */
function findSession(sessions: SessionSummary[], id: string): SessionSummary | string {
  const exact = sessions.find((s) => s.sessionId === id);
  if (exact) return exact;
  const matches = sessions.filter((s) => s.sessionId.startsWith(id));
  if (matches.length === 1 && matches[0]) return matches[0];
  if (matches.length > 1)
    return `"${id}" matches ${matches.length} sessions; type more of the id (/sessions lists them).`;
  return `No session "${id}" in this workspace; /sessions lists them.`;
}

/** `/export [path]`: the conversation as Markdown, never over an existing file. */
async function exportCommand(ctx: CommandContext, name: string | null): Promise<void> {
  const { session, store } = ctx;
  // Without a name it goes next to the session's journal, in nex's data folder: a file in the
  // workspace would show as untracked in the user's repository.
  const path = name
    ? resolve(session.info.workspace, name)
    : join(dirname(session.info.journalPath), `${session.info.sessionId}.md`);
  // Never over an existing file: the user's work is not replaced by a transcript.
  await writeFile(path, transcriptMarkdown(session.info, session.history()), {
    flag: "wx",
  }).catch((error: NodeJS.ErrnoException) => {
    throw new Error(
      error.code === "EEXIST"
        ? `${path} already exists; nothing was written. Give another name: /export other.md`
        : `${path} could not be written (${error.message}); nothing was written.`,
    );
  });
  return say(
    store,
    name
      ? `Wrote the conversation to ${path}.`
      : `Wrote the conversation to ${path} (nex's data folder, outside the workspace). /export FILE writes it where you say, relative to the workspace.`,
    "good",
  );
}

/** `/resume ID`: switches to the session (or says how), or says why not. */
async function resumeCommand(ctx: CommandContext, id: string): Promise<void> {
  const { session, store } = ctx;
  const found = findSession(await session.listSessions(), id);
  if (typeof found === "string") {
    const elsewhere = findSession(await session.listSessions("all"), id);
    if (typeof elsewhere !== "string") return say(store, otherProject(elsewhere), "warn");
    return say(store, found, "warn");
  }
  if (found.sessionId === session.info.sessionId) return say(store, "That is this session.", "dim");
  if (ctx.switchTo) return ctx.switchTo(found.sessionId);
  return say(
    store,
    `To resume session ${found.sessionId} (${found.messages} messages, started ${found.startedAt}), quit with /exit and run:\n  nex resume ${found.sessionId}`,
  );
}

/** Runs one slash command; failures become an error entry in the chat, never an exception. */
export async function runCommand(command: Command, ctx: CommandContext): Promise<void> {
  const { session, store } = ctx;
  try {
    switch (command.type) {
      case "invalid":
        return say(store, command.message, "warn");
      case "help":
        return say(store, helpWith(ctx.session.info.extensions), "dim", true);
      case "reasoning": {
        const last = store.get().transcript.lastReasoning;
        return last
          ? say(store, plainText(last.trim()), "dim")
          : say(store, "No reasoning yet: the model has not sent any in this chat.", "dim");
      }
      case "reasoning_effort":
        return say(
          store,
          session.setReasoningEffort(command.effort),
          command.effort === null ? "dim" : "good",
        );
      case "mcp":
        return say(store, plainText(session.mcpStatus?.() ?? "No MCP servers configured."), "dim");
      case "bg":
        return say(
          store,
          plainText(
            (await session.jobsCommand?.(command.args)) ?? "This session runs no background jobs.",
          ),
          "dim",
        );
      case "exit":
        return ctx.exit();
      case "undo": {
        const result = await session.undo(command.turns);
        return say(store, describeUndo(result), result.kind === "partial" ? "warn" : "good");
      }
      case "diff": {
        const text = (await session.diff?.()) ?? "This session cannot show its changes.";
        // A single line says there is nothing to show; more lines are the diff.
        return say(store, text, text.includes("\n") ? "diff" : "dim");
      }
      case "context":
        return say(
          store,
          (await session.contextReport?.()) ?? "This session cannot report its context.",
        );
      case "undo_list":
        return say(store, await session.undoPreview(), "dim");
      case "compact": {
        say(store, "Compacting the conversation…", "dim");
        const result = await session.compact();
        // A compaction announces itself (its `context_fitted` event); only a refusal is said here.
        if (result.kind !== "compacted")
          say(store, describeCompact(result), result.kind === "not_needed" ? "dim" : "warn");
        return;
      }
      case "model":
        return switchModel(ctx, command.name);
      case "model_list":
        return modelListCommand(ctx);
      case "sessions":
        return say(store, sessionTable(await session.listSessions()));
      case "status": {
        const meter = store.get().meter;
        const price = session.priceOf?.(meter.model) ?? null;
        return say(store, statusText(session.info, meter, ctx.mode, price), "plain", true);
      }
      case "export":
        return exportCommand(ctx, command.path);
      case "resume_pick": {
        const sessions = await session.listSessions();
        if (sessions.length === 0) return say(store, "No saved sessions in this workspace yet.");
        if (ctx.openPicker) return ctx.openPicker(sessions);
        return say(store, sessionTable(sessions));
      }
      case "resume":
        return resumeCommand(ctx, command.id);
      case "rewind":
        return rewindCommand(ctx, command.target, command.confirmed);
      case "fork": {
        const result = session.fork
          ? await session.fork()
          : { sessionId: null, line: "This session cannot be forked." };
        if (result.sessionId === null) return say(store, result.line, "warn");
        // Said in the chat that opens on the fork: this one closes at once.
        if (ctx.switchTo) return ctx.switchTo(result.sessionId, result.line);
        return say(store, result.line, "good");
      }
      case "clear": {
        const result = await session.clear();
        if (!result.cleared) return say(store, result.line, "warn");
        ctx.clearScreen();
        return say(store, result.line, "dim");
      }
      case "mode": {
        ctx.setMode(command.mode ?? nextMode(ctx.mode));
        return;
      }
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    store.update((state) =>
      addEntry(state, {
        type: "error",
        code: command.type,
        title: `/${command.type} failed`,
        message,
      }),
    );
  }
}
