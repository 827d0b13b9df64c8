// The built-in tools the model calls: files (read, write, edit), commands (bash, jobs), search (grep,
// glob, list_dir) and the todo list. Each file defines one tool; the host (../host/) runs them.
import type { PartsStore } from "../files/index.ts";
import type { Tool } from "../tool.ts";
import { bashTool } from "./bash.ts";
import { editFileTool } from "./edit-file.ts";
import { globTool } from "./glob.ts";
import { grepTool } from "./grep.ts";
import { jobsTool } from "./jobs.ts";
import { listDirTool } from "./list-dir.ts";
import { readFileTool } from "./read-file.ts";
import { todoWriteTool } from "./todo-write.ts";
import { writeFileTool } from "./write-file.ts";

export { jobsTool } from "./jobs.ts";
export { MAX_READ_FILE_BYTES } from "./read-file.ts";
export { latestTodos, todoNote } from "./todo-write.ts";

/** The built-in tools, writing staged parts to `parts()` (asked at a call, never before). */
export function allTools(parts: () => PartsStore): Tool[] {
  return [
    readFileTool(),
    writeFileTool(parts),
    editFileTool(),
    bashTool(),
    grepTool(),
    globTool(),
    listDirTool(),
    jobsTool(),
    todoWriteTool(),
  ];
}
