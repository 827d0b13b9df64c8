// The simple commands inside a shell command line, found with mvdan/sh's real parser (the GopherJS
// build `mvdan-sh`: sh-syntax's WASM build returns a JSON tree without the command nodes, so it
// cannot show the calls inside `a && b` or `$(...)`).

/** One simple command (a CallExpr): its words, and whether its real action is hidden from us. */
export interface SubCommand {
  /** Each word's literal value when it has one (quotes removed), else its source text. */
  words: string[];
  text: string;
  /** It runs code we cannot see (`bash -c`, `eval`, `xargs`, `find -exec`, a command named by a variable...). */
  opaque: boolean;
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
interface ShCall extends ShNode {
  Args: GoSlice<ShWord>;
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
    if (type === "Lit" || type === "SglQuoted") value += part.Value ?? "";
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

function isOpaque(words: string[], literals: Array<string | null>): boolean {
  const first = literals[0];
  if (first === null || first === undefined) return true;
  const name = first.split("/").pop() ?? first;
  if (OPAQUE.has(name)) return true;
  return name === "find" && words.some((word) => FIND_EXEC.has(word));
}

/** Parses a bash command line and lists every simple command in it, nested ones (`$(...)`, subshells) included. */
export async function parseCommand(source: string): Promise<ParsedCommand> {
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
  syntax.Walk(file, (node) => {
    if (!node || syntax.NodeType(node) !== "CallExpr") return true;
    const call = node as ShCall;
    if (call.Args.length === 0) return true;
    const literals: Array<string | null> = [];
    const words: string[] = [];
    for (let i = 0; i < call.Args.length; i += 1) {
      const word = call.Args[i] as ShWord;
      const value = literal(syntax, word);
      literals.push(value);
      words.push(value ?? slice(word));
    }
    commands.push({ words, text: slice(call), opaque: isOpaque(words, literals) });
    return true;
  });
  return { type: "parsed", commands };
}
