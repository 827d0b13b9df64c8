// What the built-in tools run on, each part loaded once, at the first call that needs it: the tools'
// definitions (what the model is offered) load at start-up, their machinery never does unless used.
// Memoised: `import()` of a loaded module still costs a resolution each time, and a tool runs often.
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    loaded ??= load();
    return loaded;
  };
}

/** File safety: reading, checking and matching (`read_file`, `write_file`, `edit_file`). */
export const fileSafety = once(() => import("../files/index.ts"));
/** How a change reaches the disk (`write_file`, `edit_file`). */
export const fileWriter = once(() => import("./file-writer.ts"));
/** Processes, jobs and live output (`bash`, `jobs`). */
export const processes = once(() => import("../shell/index.ts"));
/** Where a large result is stored (`bash`). */
export const storedResults = once(() => import("../results/index.ts"));
/** Listing and matching files (`glob`, `list_dir`). */
export const fileListing = once(() => import("../search/index.ts"));
/** Undo's checkpoints (`bash`, when one cannot be saved). */
export const checkpoints = once(() => import("../undo/index.ts"));
