// Stdout is the protocol's: anything else that writes there (a stray log, a library's warning)
// would corrupt a message, so it goes to stderr instead.
import { Writable } from "node:stream";

/** The protocol's own stream onto the real stdout; `process.stdout.write` goes to stderr after this. */
export function claimStdout(): WritableStream<Uint8Array> {
  const stdout = process.stdout;
  const write = stdout.write.bind(stdout);
  stdout.write = ((chunk: unknown, ...rest: unknown[]) =>
    (process.stderr.write as (...args: unknown[]) => boolean)(
      chunk,
      ...rest,
    )) as typeof stdout.write;
  return Writable.toWeb(
    new Writable({
      write(chunk, _encoding, done) {
        write(chunk, (error?: Error | null) => done(error ?? null));
      },
    }),
  ) as WritableStream<Uint8Array>;
}
