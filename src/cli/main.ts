/** Parses the command line and hands over to a mode. Returns the process exit code. */
export async function main(args: string[]): Promise<number> {
  process.stderr.write(`nex: not yet implemented: ${args.join(" ")}\n`);
  return 2;
}
