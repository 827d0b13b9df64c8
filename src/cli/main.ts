import { EXIT } from "../headless/exit-code.ts";
import { plainText } from "../protocol/plain-text.ts";
import { describeCompact } from "../protocol/session-result-words.ts";
import { ConfigError } from "../runtime/config/index.ts";
import { SessionBusyError } from "../runtime/session/index.ts";
import { applyColourPolicy } from "../tui/colour.ts";
import { type Command, parseCommand, UsageError } from "./args.ts";
import { tolerateClosedOutput } from "./closed-output.ts";

/** Parses the command line and hands over to a mode. Returns the process exit code. */
export async function main(argv: string[]): Promise<number> {
  tolerateClosedOutput();
  applyColourPolicy();
  let command: Command;
  try {
    command = parseCommand(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`nex: ${error.message}\n`);
      return EXIT.usage;
    }
    throw error;
  }
  try {
    return await dispatch(command);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof SessionBusyError) {
      process.stderr.write(`nex: ${error.message}\n`);
      return EXIT.config;
    }
    throw error;
  }
}

async function dispatch(command: Command): Promise<number> {
  switch (command.type) {
    case "help":
      process.stdout.write(`${command.text}\n`);
      return EXIT.done;
    case "completion": {
      const { completionScript } = await import("./completion.ts");
      process.stdout.write(completionScript(command.shell));
      return EXIT.done;
    }
    case "run": {
      const { runCommand } = await import("./run-command.ts");
      return runCommand(command.options, command.task, command.resume, command.io);
    }
    case "chat": {
      if (!(await firstRunSetupDone(command))) return EXIT.config;
      const { runChat } = await import("./chat.ts");
      return runChat(command.options, command.resume, command.role);
    }
    case "chat-files":
      return (await import("../headless/chat-files/index.ts")).chatFilesCommand(command);
    case "sessions":
      return (await import("./session-show.ts")).listSessions(command.options);
    case "session-show":
      return (await import("./session-show.ts")).showSession(command.options, command.id);
    case "compact": {
      const { compactSession } = await import("../runtime/assembly/index.ts");
      const { createTextRenderer } = await import("../headless/text-renderer.ts");
      const toStderr = (text: string) => process.stderr.write(text);
      const result = await compactSession(
        command.options,
        process.env,
        process.cwd(),
        command.session,
        (info) => createTextRenderer(info, { out: toStderr, err: toStderr }),
      );
      // Said once, here; it may quote the endpoint.
      process.stderr.write(`nex: ${plainText(describeCompact(result))}\n`);
      return result.kind === "compacted" || result.kind === "not_needed" ? EXIT.done : EXIT.failure;
    }
    case "undo":
      return runUndo(command);
    case "hooks": {
      const { hooksReport } = await import("../runtime/hooks/index.ts");
      const report = await hooksReport(
        command.options,
        process.env,
        process.cwd(),
        command.approve,
      );
      await printReport(report, command.options.json && !command.approve);
      return report.ok ? EXIT.done : EXIT.failure;
    }
    case "commands": {
      const { commandsReport } = await import("../runtime/extensions/index.ts");
      const report = await commandsReport(
        command.options,
        process.env,
        process.cwd(),
        command.approve ? { name: command.name } : null,
      );
      await printReport(report, command.options.json && !command.approve);
      return report.ok ? EXIT.done : EXIT.failure;
    }
    case "doctor": {
      const { runDoctorReport } = await import("../headless/doctor-report.ts");
      return runDoctorReport(command.options, process.env, process.cwd(), {
        json: command.options.json,
        out: (text) => process.stdout.write(text),
      });
    }
    case "acp": {
      const { runAcp } = await import("../acp/index.ts");
      return runAcp(command.options, process.env, process.cwd());
    }
    case "mcp": {
      const { runMcpCommand } = await import("../runtime/mcp/index.ts");
      return runMcpCommand(command.mcp, command.options, process.env, process.cwd(), (text) =>
        process.stdout.write(plainText(text)),
      );
    }
    case "demo": {
      const { runDemo } = await import("./demo.ts");
      return runDemo(command.scenario, command.options);
    }
  }
}

/** `nex undo`: undoes, or with --list says what each step would restore (--json: as a JSON array). */
async function runUndo(command: Command & { type: "undo" }): Promise<number> {
  const { undoSession } = await import("../runtime/history/index.ts");
  const { describeUndoAnswer } = await import("../headless/undo-words.ts");
  const answer = await undoSession(
    command.options,
    process.env,
    process.cwd(),
    command.session,
    command.turns,
    { list: command.list, includeUnsure: command.includeUnsure },
  );
  if (command.list && command.options.json) {
    const { terminalJson } = await import("../headless/terminal-json.ts");
    const steps = answer.kind === "preview" ? answer.steps : [];
    process.stdout.write(`${terminalJson(steps, 2)}\n`);
    return EXIT.done;
  }
  // It names files the model created.
  process.stdout.write(`${plainText(describeUndoAnswer(answer))}\n`);
  return answer.kind === "undo" && answer.result.kind === "partial" ? EXIT.failure : EXIT.done;
}

/** A report's text, or its rows as a JSON array with its problems on stderr. */
async function printReport(
  report: { text: string; rows: unknown[]; problems: string[] },
  json: boolean,
): Promise<void> {
  if (!json) {
    process.stdout.write(`${plainText(report.text)}\n`);
    return;
  }
  const { terminalJson } = await import("../headless/terminal-json.ts");
  for (const problem of report.problems) process.stderr.write(`nex: ${plainText(problem)}\n`);
  process.stdout.write(`${terminalJson(report.rows, 2)}\n`);
}

/** A chat on a terminal with nothing configured asks where to go first; false when the user left instead. */
async function firstRunSetupDone(command: Command & { type: "chat" }): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stdout.isTTY || command.resume) return true;
  const { unconfiguredConfigPath } = await import("../runtime/config/index.ts");
  const { existsSync } = await import("node:fs");
  const path = await unconfiguredConfigPath(command.options, process.env, existsSync);
  if (!path) return true;
  const { runFirstRunSetup } = await import("./first-run-setup.ts");
  if (await runFirstRunSetup(path, process.env)) return true;
  process.stderr.write(
    "\nnex: set-up stopped; nothing was written. Run `nex` again, or pass --base-url and --model.\n",
  );
  return false;
}
