// Where a word a model used as a tool's name occurs in the workspace. Small models call a tool named
// after a symbol of the task (`Rectangle`, `get_user`, `shipping_cost`: Qwen2.5-Coder 0.5B, r12 and
// r13); the reminder that tells them which tool to call names the file that defines it, so their next
// call reads the right file, or says that no file has it.

import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { join, posix } from "node:path";
import type { NameSighting, NameSightings } from "../../protocol/index.ts";
import { type HostState, sharedContext } from "./host-state.ts";

/** A word this looks for: an identifier (`get_user`, `$el`) or a key with hyphens (`max-age`). */
const SEARCHABLE_WORD = /^[A-Za-z_$][\w$-]{0,79}$/;

// The look costs a fraction of a second on a large tree: a few MiB read, then it stops.
const BYTE_BUDGET = 4 * 2 ** 20;
const MAX_FILES = 2_000;
// A file larger than this is left out (generated code, data, a log), and the look is then partial.
const MAX_FILE_BYTES = 512 * 1024;
const SHOWN_CHARS = 80;
// Where a definition is least likely: read after the code, for the mentions.
const PROSE_AND_DATA = /\.(?:jsonl?|ndjson|md|rst|txt|log|csv|tsv|lock|map|svg|html?|xml)$/i;

/**
 * Where `word` occurs in the files grep would search (git's or the ignore files' choice, nex's own
 * data left out; symlinks never followed, so nothing outside the workspace is read): lines that
 * declare it (`class X`, `def X`, `function X`, `const X`), then lines that set it (`X =`, `X:`,
 * `[X]`, `export ... X`), as definitions; then files whose stem is `word`; then lines that mention
 * it; one line a file, at most `limit`. It reads the files whose stem is the word first, then code
 * and configuration before prose and data, the shallowest first, and stops at `limit` declarations
 * or a file budget, reading no more than a byte budget; `complete` says it read every text file it
 * could, so that finding nothing means nothing is there.
 */
export async function whereNamed(
  state: HostState,
  word: string,
  limit: number,
  signal: AbortSignal,
): Promise<NameSightings> {
  if (!SEARCHABLE_WORD.test(word) || word.endsWith("-") || limit < 1)
    return { sightings: [], complete: false };
  const { workspace, search } = await sharedContext(state);
  const listed = await search.listFiles(workspace.root, signal);
  const redact = state.options.redact ?? ((text: string) => text);
  const stemIs = (path: string) => stemOf(path) === word;
  const depth = (path: string) => path.split("/").length;
  const rank = (path: string) => (stemIs(path) ? 0 : PROSE_AND_DATA.test(path) ? 2 : 1);
  const files = listed.files
    .filter((file) => !file.path.startsWith("/"))
    .sort((a, b) => rank(a.path) - rank(b.path) || depth(a.path) - depth(b.path));
  const named: NameSighting[] = files
    .filter((file) => stemIs(file.path))
    .map((file) => ({ kind: "file", path: file.path, line: 0, text: "" }));
  const declared: NameSighting[] = [];
  const keys: NameSighting[] = [];
  const mentions: NameSighting[] = [];
  const patterns = patternsOf(word);
  let complete = listed.unsearched.length === 0;
  let budget = BYTE_BUDGET;
  let read = 0;
  for (const file of files) {
    signal.throwIfAborted();
    if (declared.length >= limit || read >= MAX_FILES) {
      complete = false;
      break;
    }
    if (file.size > MAX_FILE_BYTES || file.size > budget) {
      complete = false;
      continue;
    }
    const text = await textOf(join(workspace.root, file.path), file.size);
    read += 1;
    budget -= file.size;
    if (text === null) {
      complete = false;
      continue;
    }
    if (text === "binary" || !text.includes(word)) continue;
    const found = firstLineIn(text, patterns);
    if (found === null) continue;
    const sighting = {
      path: file.path,
      line: found.line + 1,
      text: shown(redact(found.text)),
    };
    const list = found.kind === "declaration" ? declared : found.kind === "key" ? keys : mentions;
    if (list === declared || list.length < limit)
      list.push({ kind: list === mentions ? "mention" : "definition", ...sighting });
  }
  return { sightings: [...declared, ...keys, ...named, ...mentions].slice(0, limit), complete };
}

/** How a line has the word: declares it (`class X`), sets it (`X =`, `X:`), or only mentions it. */
type LineKind = "declaration" | "key" | "mention";

/**
 * A file's line that has the word, the strongest kind first (its first declaration, else its first
 * key, else its first mention): one line a file, since a second file tells the model more than a
 * second line of the same one.
 */
function firstLineIn(
  text: string,
  patterns: WordPatterns,
): { kind: LineKind; line: number; text: string } | null {
  const lines = text.split("\n");
  let best: { kind: LineKind; line: number; text: string } | null = null;
  for (let n = 0; n < lines.length; n += 1) {
    const line = lines[n] as string;
    if (!patterns.mention.test(line)) continue;
    if (patterns.declaration.some((pattern) => pattern.test(line)))
      return { kind: "declaration", line: n, text: line };
    if (best?.kind !== "key" && patterns.key.some((pattern) => pattern.test(line)))
      best = { kind: "key", line: n, text: line };
    else best ??= { kind: "mention", line: n, text: line };
  }
  return best;
}

/** A file's name without its extensions: `count.test.js` and `count.js` are both `count`'s. */
function stemOf(path: string): string {
  const base = posix.basename(path);
  const dot = base.indexOf(".", 1);
  return dot < 0 ? base : base.slice(0, dot);
}

/** A file's text; "binary" when it holds a NUL byte; null when it could not be read as a file. */
async function textOf(abs: string, size: number): Promise<string | "binary" | null> {
  // O_NOFOLLOW: a file swapped for a symlink since the listing is not followed out of the workspace.
  const handle = await open(abs, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => null);
  if (handle === null) return null;
  try {
    if (!(await handle.stat()).isFile()) return null;
    const bytes = Buffer.alloc(size);
    const { bytesRead } = await handle.read(bytes, 0, size, 0);
    const got = bytes.subarray(0, bytesRead);
    return got.includes(0) ? "binary" : got.toString("utf8");
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

/** The word as a whole word, and the lines that define it in the languages and formats models meet. */
/** The word as a whole word, and the lines that declare it or set it as a key or a variable. */
interface WordPatterns {
  mention: RegExp;
  declaration: RegExp[];
  key: RegExp[];
}

function patternsOf(word: string): WordPatterns {
  const w = word.replace(/[$-]/g, "\\$&");
  const whole = `(?<![\\w$-])${w}(?![\\w$-])`;
  const modifiers =
    "(?:(?:export|default|declare|async|public|private|protected|static|abstract|final|readonly|pub(?:\\([\\w\\s]*\\))?|unsafe|inline|extern|open|data|sealed)\\s+)*";
  const keyword =
    "(?:def|class|function\\*?|func|fn|struct|enum|interface|type|trait|module|object|const|let|var|val|sub|proc|impl|mod|namespace|record|macro)";
  return {
    mention: new RegExp(whole),
    declaration: [
      // `class X`, `def X(`, `export async function X`, `func (r *R) X(`, `const X =`
      new RegExp(`^\\s*${modifiers}${keyword}\\s+(?:\\([^)]*\\)\\s*)?\\*?\\s*${whole}`),
      // A method in a JavaScript class or object: `X(a, b) {`
      new RegExp(`^\\s*${modifiers}(?:get\\s+|set\\s+)?${w}\\s*\\([^)]*\\)\\s*(?::[^{]*)?\\{`),
    ],
    key: [
      // `X = ...`, `self.X = ...`, a YAML or JSON key `X:` / `"X":`, an INI key `X = v`
      new RegExp(`^\\s*${modifiers}(?:[\\w$]+\\.)*["']?${w}["']?\\s*(?::(?!:)|=(?![=>]))`),
      // `export { X }`, an INI section `[X]`
      new RegExp(`^\\s*export\\b.*${whole}`),
      new RegExp(`^\\s*\\[${w}\\]\\s*$`),
    ],
  };
}

/** A line as a reminder quotes it: trimmed, control characters out, cut short. */
function shown(line: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
  const clean = line.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  return clean.length > SHOWN_CHARS ? `${clean.slice(0, SHOWN_CHARS - 1)}…` : clean;
}
