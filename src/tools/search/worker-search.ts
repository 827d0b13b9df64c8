// Runs the JavaScript search in a worker for a pattern V8 cannot fall back to linear time on: a file
// on which the pattern runs past its budget is named as not searched, the worker is ended, and the
// search goes on with the next file. nex's event loop never waits on a runaway pattern.
import type { FileMatches } from "./line-search.ts";
import type { SearchPattern } from "./pattern.ts";

const workerThreads = () => process.getBuiltinModule("node:worker_threads");

/** How long one file may take before the pattern is judged runaway on it. */
export const FILE_BUDGET_MS = 5_000;

// The checkout runs the TypeScript source; the package runs the built JavaScript.
const WORKER = new URL(
  import.meta.url.endsWith(".ts") ? "./regex-worker.ts" : "./regex-worker.js",
  import.meta.url,
);

/** Searches `paths` in order, handing each file's matches to `take`. */
export async function searchInWorker(
  pattern: SearchPattern,
  paths: string[],
  abs: (path: string) => string,
  signal: AbortSignal,
  take: (path: string, found: FileMatches) => void,
  budgetMs = FILE_BUDGET_MS,
): Promise<void> {
  let next = 0;
  while (next < paths.length) {
    signal.throwIfAborted();
    next = await new Promise<number>((resolve, reject) => {
      const start = next;
      let expected = start;
      let last = Date.now();
      // Until the worker has loaded, nothing runs the pattern: a slow start is no runaway.
      let ready = false;
      let settled = false;
      const worker = new (workerThreads().Worker)(WORKER, {
        workerData: {
          paths: paths.slice(start).map(abs),
          source: pattern.js,
          flags: pattern.flags,
        },
      });
      const finish = (then: () => void): void => {
        if (settled) return;
        settled = true;
        clearInterval(watch);
        signal.removeEventListener("abort", onAbort);
        void worker.terminate();
        then();
      };
      const watch = setInterval(
        () => {
          if (!ready || Date.now() - last <= budgetMs) return;
          const path = paths[expected] as string;
          take(path, {
            type: "unreadable",
            reason: `the pattern ran over ${budgetMs / 1000} s on it (it backtracks too much: simplify it, or install ripgrep)`,
          });
          finish(() => resolve(expected + 1));
        },
        Math.min(250, budgetMs),
      );
      const onAbort = (): void => finish(() => reject(signal.reason));
      signal.addEventListener("abort", onAbort, { once: true });
      worker.on(
        "message",
        (message: { index: number; found?: FileMatches; done?: true; ready?: true }) => {
          if (message.ready) {
            ready = true;
            last = Date.now();
            return;
          }
          if (message.done) return finish(() => resolve(paths.length));
          take(paths[start + message.index] as string, message.found as FileMatches);
          expected = start + message.index + 1;
          last = Date.now();
        },
      );
      worker.on("error", (error) => finish(() => reject(error)));
      // A worker that ends without saying it is done (out of memory, say) is an error, not a runaway.
      worker.on("exit", (code) => {
        if (!settled)
          finish(() => reject(new Error(`the search worker ended early (exit code ${code})`)));
      });
    });
  }
}
