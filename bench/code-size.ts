// The size of src/: files over 500 lines, functions over 120 lines (a function's lines include
// the functions inside it, measured with the TypeScript compiler's own parser) and folders with more
// than 20 files side by side.
//   node bench/code-size.ts            lists them, longest first
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";

export const MAX_FILE_LINES = 500;
export const MAX_FUNCTION_LINES = 120;
export const MAX_FOLDER_FILES = 20;

const src = resolve(import.meta.dirname, "..", "src");

/** One function (declaration, expression, arrow or method) and its length in lines. */
export interface Measured {
  file: string;
  name: string;
  line: number;
  lines: number;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

function nameOf(node: ts.Node, source: ts.SourceFile): string {
  const named = node as { name?: ts.Node };
  if (named.name) return named.name.getText(source);
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText(source);
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText(source);
  if (parent && ts.isCallExpression(parent)) {
    return `(callback of ${parent.expression.getText(source).slice(0, 40)})`;
  }
  return "(anonymous)";
}

/** Every function of every file under src/, with its length. */
export function measureFunctions(): Measured[] {
  const out: Measured[] = [];
  for (const path of sourceFiles(src)) {
    const text = readFileSync(path, "utf8");
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && (node as { body?: ts.Node }).body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        out.push({
          file: relative(src, path),
          name: nameOf(node, source),
          line: start + 1,
          lines: end - start + 1,
        });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out.sort((a, b) => b.lines - a.lines);
}

/** Every file under src/ and its line count, longest first. */
export function measureFiles(): { file: string; lines: number }[] {
  return sourceFiles(src)
    .map((path) => ({
      file: relative(src, path),
      lines: readFileSync(path, "utf8").replace(/\n$/, "").split("\n").length,
    }))
    .sort((a, b) => b.lines - a.lines);
}

/** Every folder under src/ (src/ itself included) and how many files it holds side by side, most first. */
export function measureFolders(): { folder: string; files: number }[] {
  const walk = (dir: string): { folder: string; files: number }[] => {
    const entries = readdirSync(dir, { withFileTypes: true });
    return [
      {
        folder: relative(src, dir) || ".",
        files: entries.filter((entry) => entry.isFile()).length,
      },
      ...entries
        .filter((entry) => entry.isDirectory())
        .flatMap((entry) => walk(join(dir, entry.name))),
    ];
  };
  return walk(src).sort((a, b) => b.files - a.files);
}

if (import.meta.main) {
  const functions = measureFunctions().filter((f) => f.lines > MAX_FUNCTION_LINES);
  const files = measureFiles().filter((f) => f.lines > MAX_FILE_LINES);
  console.log(`files over ${MAX_FILE_LINES} lines: ${files.length}`);
  for (const f of files) console.log(`  ${String(f.lines).padStart(5)}  ${f.file}`);
  console.log(`functions over ${MAX_FUNCTION_LINES} lines: ${functions.length}`);
  for (const f of functions)
    console.log(`  ${String(f.lines).padStart(5)}  ${f.name}  ${f.file}:${f.line}`);
  const folders = measureFolders();
  const crowded = folders.filter((f) => f.files > MAX_FOLDER_FILES);
  console.log(`folders with more than ${MAX_FOLDER_FILES} files side by side: ${crowded.length}`);
  for (const f of crowded) console.log(`  ${String(f.files).padStart(5)}  ${f.folder}`);
  const [largestFile] = measureFiles();
  const [largestFunction] = measureFunctions();
  console.log(
    `largest file: ${largestFile?.file} (${largestFile?.lines}); largest function: ${largestFunction?.name} in ${largestFunction?.file} (${largestFunction?.lines}); fullest folder: ${folders[0]?.folder} (${folders[0]?.files} files)`,
  );
}
