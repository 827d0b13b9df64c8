// A worker that searches files with a pattern V8 must run in its backtracking engine (Unicode
// classes, `\b`): one that backtracks for ever blocks only this thread, which nex then ends.
import { parentPort, workerData } from "node:worker_threads";
import { searchFile } from "./line-search.ts";

const { paths, source, flags } = workerData as { paths: string[]; source: string; flags: string };
const regex = new RegExp(source, flags);
// Loaded: the budget of each file starts now, not while a loaded machine starts the worker.
parentPort?.postMessage({ ready: true });
for (let index = 0; index < paths.length; index += 1)
  parentPort?.postMessage({ index, found: await searchFile(paths[index] as string, regex) });
parentPort?.postMessage({ index: paths.length, done: true });
