// `nex run … | head -1` closes stdout while nex still has output and work. Node turns the failed
// write into an 'error' event that, unheard, crashes the process mid-task with a stack trace. The
// reader leaving is not a failure of the task: the rest of that stream's output is dropped and the
// task runs to its end (its record is in the journal).
const GONE = new Set(["EPIPE", "ERR_STREAM_DESTROYED", "ERR_STREAM_WRITE_AFTER_END"]);

/** Keeps a closed stdout or stderr from crashing nex; other write errors are reported on stderr. */
export function tolerateClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (GONE.has(error.code ?? "")) return;
      if (stream !== process.stderr && !process.stderr.destroyed) {
        process.stderr.write(`nex: writing the output failed (${error.message}).\n`);
      }
    });
  }
}
