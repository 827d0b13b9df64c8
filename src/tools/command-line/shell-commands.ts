// The simple commands inside a shell command line, found with mvdan/sh's real parser (the GopherJS
// build `mvdan-sh`: sh-syntax's WASM build returns a JSON tree without the command nodes, so it
// cannot show the calls inside `a && b` or `$(...)`).

/**
 * One simple command (a CallExpr), or a construct whose action is hidden from us (arithmetic, `[[ ]]`,
 * a declaration, an assignment, a file redirection of a compound command): its words, and whether opaque.
 */
export interface SubCommand {
  /** Each word's literal value when it has one (quotes removed), else its source text. */
  words: string[];
  text: string;
  /**
   * It runs code we cannot see (`bash -c`, `eval`, `xargs`, `find -exec`, a command named by a variable...)
   * or does more than its words say (an assignment prefix, a redirection into a file).
   */
  opaque: boolean;
  /** Files its redirections may write (`> out.txt`), as literal words or source text. */
  writes?: string[];
}

/** A command line split into its simple commands, or why it could not be parsed. */
export type ParsedCommand =
  | { type: "parsed"; commands: SubCommand[] }
  | { type: "unparsed"; reason: string };

interface GoSlice<T> {
  length: number;
  [index: number]: T;
}
interface ShPos {
  Offset(): number;
}
interface ShNode {
  Pos(): ShPos;
  End(): ShPos;
}
interface ShWordPart extends ShNode {
  Value?: string;
  Parts?: GoSlice<ShWordPart>;
}
interface ShWord extends ShNode {
  Parts: GoSlice<ShWordPart>;
}
interface ShAssign extends ShNode {
  Index: ShNode | null;
}
interface ShCall extends ShNode {
  Args: GoSlice<ShWord>;
  Assigns: GoSlice<ShAssign>;
}
interface ShRedirect extends ShNode {
  OpPos: ShPos;
  Word: ShWord | null;
}
interface ShStmt extends ShNode {
  Cmd: ShNode | null;
  Redirs: GoSlice<ShRedirect>;
}
interface ShParamExp extends ShNode {
  Index: ShNode | null;
}
interface ShSyntax {
  NewParser(): { Parse(source: string, name: string): unknown };
  Walk(node: unknown, visit: (node: unknown) => boolean): void;
  NodeType(node: unknown): string;
}

const OPAQUE = new Set([
  "bash",
  "sh",
  "zsh",
  "dash",
  "ksh",
  "fish",
  "eval",
  "source",
  ".",
  "exec",
  "sudo",
  "doas",
  "su",
  "xargs",
  "env",
  "nohup",
  "nice",
  "timeout",
  "watch",
  "command",
  "builtin",
  "parallel",
  "time",
  "trap",
]);
const FIND_EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir", "-delete"]);

let loading: Promise<ShSyntax> | null = null;

function loadSyntax(): Promise<ShSyntax> {
  loading ??= (async () => {
    // The GopherJS runtime sets Error.stackTraceLimit to Infinity and a global `require` on load; undo both.
    const limit = Error.stackTraceLimit;
    const hadRequire = "require" in globalThis;
    const module = await import("mvdan-sh");
    Error.stackTraceLimit = limit;
    if (!hadRequire) Reflect.deleteProperty(globalThis, "require");
    return module.default.syntax as ShSyntax;
  })();
  return loading;
}

function literal(syntax: ShSyntax, word: ShWord): string | null {
  let value = "";
  for (let i = 0; i < word.Parts.length; i += 1) {
    const part = word.Parts[i] as ShWordPart;
    const type = syntax.NodeType(part);
    // Unquoted, bash drops a backslash and keeps the next character: `r\m` runs rm.
    if (type === "Lit") value += (part.Value ?? "").replace(/\\\n/g, "").replace(/\\(.)/gs, "$1");
    else if (type === "SglQuoted") value += part.Value ?? "";
    else if (type === "DblQuoted") {
      const inner = part.Parts;
      for (let j = 0; inner && j < inner.length; j += 1) {
        const piece = inner[j] as ShWordPart;
        if (syntax.NodeType(piece) !== "Lit") return null;
        value += piece.Value ?? "";
      }
    } else return null;
  }
  return value;
}

// Constructs whose effect no allow rule can vouch for: arithmetic and `[[ ]]` evaluate array
// subscripts (`a[$(cmd)]`), declarations assign and export.
const OPAQUE_NODES = new Set(["LetClause", "ArithmCmd", "TestClause", "DeclClause"]);

const INPUT_OPS = new Set(["<", "<<", "<<-", "<<<", "<&"]);

/** Whether a redirection may write a file: anything but input, a duplicated descriptor or /dev/null. */
function writesFile(op: string, target: string | null): boolean {
  if (INPUT_OPS.has(op)) return false;
  if (op === ">&" && target !== null && /^(\d+-?|-)$/.test(target)) return false;
  return target !== "/dev/null";
}

// A subscript is safe only as a number (or @ and *): any other is evaluated as arithmetic, which
// runs command substitutions hidden in variables' values.
function literalIndex(syntax: ShSyntax, index: ShNode | null): boolean {
  if (index === null) return true;
  if (syntax.NodeType(index) !== "Word") return false;
  const value = literal(syntax, index as ShWord);
  return value !== null && /^(\d+|@|\*)$/.test(value);
}

function isOpaque(words: string[], literals: Array<string | null>): boolean {
  const first = literals[0];
  if (first === null || first === undefined) return true;
  const name = first.split("/").pop() ?? first;
  if (OPAQUE.has(name)) return true;
  return name === "find" && words.some((word) => FIND_EXEC.has(word));
}

// A command is parsed by each guard that reads it (permissions, the snapshot decision, the paths it
// names): the parser is slow (~ms), its answer depends on the text alone, so the last few are kept.
const parsedRecently = new Map<string, Promise<ParsedCommand>>();
const KEPT_PARSES = 64;

/** Parses a bash command line and lists every simple command in it, nested ones (`$(...)`, subshells) included. */
export function parseCommand(source: string): Promise<ParsedCommand> {
  const known = parsedRecently.get(source);
  if (known) return known;
  if (parsedRecently.size >= KEPT_PARSES)
    parsedRecently.delete(parsedRecently.keys().next().value as string);
  const parsing = parseAnew(source);
  parsedRecently.set(source, parsing);
  // A failure is not kept: the next guard asks again.
  parsing.catch(() => parsedRecently.delete(source));
  return parsing;
}

async function parseAnew(source: string): Promise<ParsedCommand> {
  const syntax = await loadSyntax();
  let file: unknown;
  try {
    file = syntax.NewParser().Parse(source, "");
  } catch (error) {
    const goError = error as { Error?: () => string };
    return {
      type: "unparsed",
      reason: typeof goError?.Error === "function" ? goError.Error() : String(error),
    };
  }
  const bytes = Buffer.from(source, "utf8");
  const slice = (node: ShNode): string =>
    bytes.subarray(node.Pos().Offset(), node.End().Offset()).toString("utf8");
  const commands: SubCommand[] = [];
  const hidden = (node: ShNode): void => {
    const text = slice(node);
    commands.push({ words: [text], text, opaque: true });
  };
  const key = (node: ShNode): string => `${node.Pos().Offset()}:${node.End().Offset()}`;
  // Simple commands whose statement writes a file through a redirection, with the targets.
  const redirected = new Map<string, string[]>();
  syntax.Walk(file, (node) => {
    if (!node) return true;
    const type = syntax.NodeType(node);
    if (OPAQUE_NODES.has(type)) {
      hidden(node as ShNode);
      return true;
    }
    if (type === "Stmt") {
      const stmt = node as ShStmt;
      for (let i = 0; i < stmt.Redirs.length; i += 1) {
        const redirect = stmt.Redirs[i] as ShRedirect;
        const end = redirect.Word ? redirect.Word.Pos().Offset() : redirect.End().Offset();
        const op = bytes.subarray(redirect.OpPos.Offset(), end).toString("utf8").trim();
        const target = redirect.Word ? literal(syntax, redirect.Word) : null;
        if (!writesFile(op, target)) continue;
        const written = target ?? (redirect.Word ? slice(redirect.Word) : "");
        if (stmt.Cmd && syntax.NodeType(stmt.Cmd) === "CallExpr") {
          const cmdKey = key(stmt.Cmd);
          redirected.set(cmdKey, [...(redirected.get(cmdKey) ?? []), written]);
        } else {
          hidden(redirect);
          const last = commands[commands.length - 1];
          if (last) last.writes = [written];
        }
      }
      return true;
    }
    if (type === "ParamExp" || type === "Assign") {
      const index = (node as ShParamExp | ShAssign).Index;
      if (!literalIndex(syntax, index)) hidden(node as ShNode);
      return true;
    }
    if (type !== "CallExpr") return true;
    const call = node as ShCall;
    // A bare assignment (`PATH=/tmp/evil; git status`) changes what later commands run.
    if (call.Args.length === 0) {
      if (call.Assigns.length > 0) hidden(call);
      return true;
    }
    const literals: Array<string | null> = [];
    const words: string[] = [];
    for (let i = 0; i < call.Args.length; i += 1) {
      const word = call.Args[i] as ShWord;
      const value = literal(syntax, word);
      literals.push(value);
      words.push(value ?? slice(word));
    }
    // An assignment prefix (`GIT_EXTERNAL_DIFF=x git diff`) can make an allowed command run anything.
    const writes = redirected.get(key(call));
    const opaque = isOpaque(words, literals) || call.Assigns.length > 0 || writes !== undefined;
    commands.push({ words, text: slice(call), opaque, ...(writes ? { writes } : {}) });
    return true;
  });
  return { type: "parsed", commands };
}
