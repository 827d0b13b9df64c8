import { readFileSync, statSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { AnswerSchema } from "../headless/answer-schema.ts";
import { EXIT } from "../headless/exit-code.ts";
import type { AgentEvent, TerminalEvent } from "../protocol/index.ts";
import type { OpenOptions } from "../runtime/assembly/index.ts";
import { ConfigError } from "../runtime/config/index.ts";
import {
  type AgentSession,
  inputLineCap,
  MAX_INPUT_LINE_BYTES,
  readBounded,
} from "../runtime/session/index.ts";
import type { CommonOptions } from "./args.ts";
import type { RunIo } from "./run-flags.ts";
import { type RunLimits, startRunLimits } from "./run-limits.ts";

/** `nex run`: reads the task and the orchestrator's settings, then runs the chosen output format. */
export async function runCommand(
  options: CommonOptions,
  taskWords: string,
  resume: string | null,
  io: RunIo,
): Promise<number> {
  for (const note of io.notes) process.stderr.write(`nex: ${note}\n`);
  // Loaded only when a budget is set: most runs have none.
  const budget =
    io.maxTimeMs !== undefined || process.env.WG_TASK_TIMEOUT_SECS
      ? (await import("./task-budget.ts")).taskBudget(io.maxTimeMs, process.env, Date.now())
      : null;
  if (budget?.note) process.stderr.write(`nex: ${budget.note}\n`);
  if (budget?.ms === 0) {
    process.stderr.write(
      `nex: the task's time budget (${budget.label}) was spent before nex started; nothing was sent. Give the task more time, or run it again.\n`,
    );
    return EXIT.timeLimit;
  }
  if (budget) {
    io.maxTimeMs = budget.ms;
    io.maxTimeLabel = budget.label;
  }
  // Checked before anything is sent: a schema that does not compile costs no request.
  let schema: AnswerSchema | null = null;
  if (io.outputSchema || io.inlineSchema) {
    const { loadAnswerSchema, compileAnswerSchema } = await import("../headless/answer-schema.ts");
    schema = io.outputSchema
      ? await loadAnswerSchema(io.outputSchema)
      : await compileAnswerSchema(io.inlineSchema as string, "--json-schema");
  }
  const askedTask = await readTask(io, taskWords);
  const task = schema ? `${askedTask}\n\n${schema.instruction}` : askedTask;
  const systemPrompt = systemPromptOf(io);
  if (io.inbox !== undefined)
    (await import("./inbox-place.ts")).refuseWritableInbox(
      io.inbox,
      options,
      process.env,
      process.cwd(),
    );
  const { openSession } = await import("../runtime/assembly/index.ts");
  const err = (text: string) => process.stderr.write(text);
  const limits = startRunLimits(
    {
      ...(io.maxTimeMs !== undefined ? { maxTimeMs: io.maxTimeMs, label: budgetLabel(io) } : {}),
      ...(io.inbox !== undefined ? { inbox: io.inbox } : {}),
    },
    err,
  );
  const base = baseOpenOptions(resume, io, limits);
  let lastAnswer: string | null = null;
  const remember = (event: AgentEvent) => {
    if (event.type === "done") lastAnswer = event.finalText;
  };
  const writeLastMessage = () => {
    if (io.outputLastMessage && lastAnswer !== null)
      writeFileSync(resolve(io.outputLastMessage), lastAnswer);
  };

  if (io.output === "stream-json" || io.output === "json") {
    const code = await streamJsonRun(io.output, options, io, base, limits, {
      askedTask,
      systemPrompt,
      schema,
      remember,
    });
    finishLimits(limits);
    writeLastMessage();
    return code;
  }

  const { runHeadless } = await import("../headless/run.ts");
  const opened = await openSession(options, process.env, process.cwd(), {
    ...base,
    systemPrompt,
  });
  opened.session.subscribe(remember);
  limits.onTimeout(() => stopForBudget(opened.session, io));
  limits.onUrgent(() => opened.session.interrupt("an urgent message arrived in the --inbox"));
  const code = await runHeadless(opened.session, task, {
    json: io.output === "json-events",
    initialEvents: opened.events,
    timedOut: limits.timedOut,
    ...(schema
      ? {
          finish: async (session: AgentSession, terminal: TerminalEvent) => {
            const { enforceAnswerSchema } = await import("../headless/answer-schema.ts");
            return enforceAnswerSchema(schema as AnswerSchema, session, terminal);
          },
        }
      : {}),
    // An urgent inbox message cancelled the turn (or came as it ended): it runs now, in this session.
    followUp: () => {
      const next = limits.takeUrgent();
      return next.length > 0 && !limits.timedOut() ? next.join("\n\n") : null;
    },
  });
  finishLimits(limits);
  writeLastMessage();
  return code;
}

/** What every `nex run` session opens with, whatever its output format. */
function baseOpenOptions(resume: string | null, io: RunIo, limits: RunLimits): OpenOptions {
  return {
    resume,
    approvals: "refuse",
    concealEnvironment: true,
    ...(io.maxTimeMs !== undefined || io.inbox !== undefined
      ? { turnNotes: limits.takeNotes }
      : {}),
    ...(io.sessionName ? { sessionName: io.sessionName } : {}),
    ...(io.role ? { role: io.role } : {}),
    ...(io.tools || io.disallowedTools
      ? {
          tools: {
            ...(io.tools ? { only: io.tools } : {}),
            ...(io.disallowedTools ? { without: io.disallowedTools } : {}),
          },
        }
      : {}),
  };
}

/** `--output-format stream-json` or `json`: the session is opened when the input's settings are known. */
async function streamJsonRun(
  format: "stream-json" | "json",
  options: CommonOptions,
  io: RunIo,
  base: OpenOptions,
  limits: RunLimits,
  task: {
    askedTask: string;
    systemPrompt: { replace?: string; append?: string };
    schema: AnswerSchema | null;
    remember: (event: AgentEvent) => void;
  },
): Promise<number> {
  const { askedTask, systemPrompt, remember } = task;
  let schema = task.schema;
  const { openSession } = await import("../runtime/assembly/index.ts");
  const { runStreamJson } = await import("../headless/stream-json/index.ts");
  const { version } = JSON.parse(
    readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
  ) as { version: string };
  return runStreamJson({
    open: async (settings, approvals) => {
      const replace = settings.systemPrompt ?? systemPrompt.replace;
      const append = [systemPrompt.append, settings.appendSystemPrompt].filter(
        (part) => part !== undefined,
      );
      const opened = await openSession(
        {
          ...options,
          ...(settings.model ? { model: settings.model } : {}),
          ...(settings.permissionMode ? { permissionMode: settings.permissionMode } : {}),
        },
        process.env,
        process.cwd(),
        {
          ...base,
          approvals,
          systemPrompt: {
            ...(replace !== undefined ? { replace } : {}),
            ...(append.length > 0 ? { append: append.join("\n\n") } : {}),
          },
        },
      );
      opened.session.subscribe(remember);
      limits.onTimeout(() => stopForBudget(opened.session, io));
      if (!schema && settings.jsonSchema) {
        const { compileAnswerSchema } = await import("../headless/answer-schema.ts");
        schema = await compileAnswerSchema(
          JSON.stringify(settings.jsonSchema),
          "initialize's jsonSchema",
        );
      }
      return opened;
    },
    finish: async (session, terminal) => {
      if (limits.timedOut()) return { failure: timeFailure(io) };
      if (!schema) return {};
      const { enforceAnswerSchema } = await import("../headless/answer-schema.ts");
      return enforceAnswerSchema(schema, session, terminal);
    },
    prompt: io.taskFrom === "stream" ? null : askedTask,
    promptSuffix: () => schema?.instruction ?? null,
    format,
    partial: io.partial,
    permissionPrompts: io.permissionPrompts,
    version,
    settings: {},
    input: process.stdin,
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  });
}

function timeFailure(io: RunIo) {
  return {
    subtype: "error_during_execution",
    message: `The time budget (${budgetLabel(io)}: ${Math.round((io.maxTimeMs ?? 0) / 1000)}s) was spent before the task ended; the session is saved.`,
    exitCode: EXIT.timeLimit,
    outcome: "max_time",
  };
}

/** The budget is spent: the running prompt stops, and so does any prompt not started yet. */
function stopForBudget(session: AgentSession, io: RunIo): void {
  const why = `the ${budgetLabel(io)} budget was spent`;
  if (session.endRuns) session.endRuns(why);
  else session.interrupt(why);
}

/** What set the run's time budget, as its messages name it. */
function budgetLabel(io: RunIo): string {
  return io.maxTimeLabel ?? "--max-time";
}

/** Stops the clock and the inbox watch; says which inbox messages no turn boundary came to deliver. */
function finishLimits(limits: RunLimits): void {
  limits.stop();
  const left = limits.undelivered();
  if (left.length > 0)
    process.stderr.write(
      `nex: ${left.length} inbox message(s) arrived after the last turn and were not delivered: ${left.map((m) => JSON.stringify(m)).join("; ")}. Send them as the next task (e.g. with --session-id to continue this session).\n`,
    );
}

async function readTask(io: RunIo, words: string): Promise<string> {
  if (io.taskFrom === "args" || io.taskFrom === "stream") return words;
  const text =
    io.taskFrom === "file" ? readText(io.promptFile as string, "--prompt-file") : await readStdin();
  if (text.trim() === "")
    throw new ConfigError(
      io.taskFrom === "file"
        ? `The prompt file ${io.promptFile} is empty; write the task in it.`
        : "The task read from stdin is empty; pipe the task in, e.g. `echo 'fix the tests' | nex run -`.",
    );
  return text;
}

function systemPromptOf(io: RunIo): { replace?: string; append?: string } {
  const replace =
    io.systemPromptFile !== undefined
      ? readText(io.systemPromptFile, "--system-prompt-file")
      : io.systemPrompt;
  return {
    ...(replace !== undefined ? { replace } : {}),
    ...(io.appendSystemPrompt !== undefined ? { append: io.appendSystemPrompt } : {}),
  };
}

function readText(path: string, flag: string): string {
  try {
    if (statSync(resolve(path)).size > MAX_INPUT_LINE_BYTES)
      throw new ConfigError(
        `${flag} ${path} is larger than ${inputLineCap()}; nex did not read it. Keep the material in the workspace and give a short task that names it.`,
      );
    return readFileSync(resolve(path), "utf8");
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(
      `${flag} ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); give a readable file.`,
    );
  }
}

async function readStdin(): Promise<string> {
  const text = await readBounded(process.stdin);
  if (text === null)
    throw new ConfigError(
      `The task read from stdin is larger than ${inputLineCap()}; nex stopped reading it. Put the material in a file in the workspace and give a short task that names it.`,
    );
  return text;
}
