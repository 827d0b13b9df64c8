// The machine the figures were measured on: they mean little without it.
import { existsSync, readFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, release, totalmem, type } from "node:os";

function osName(): string {
  const file = "/etc/os-release";
  if (existsSync(file)) {
    const pretty = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync(file, "utf8"))?.[1];
    if (pretty) return `${pretty} (${type()} ${release()})`;
  }
  return `${type()} ${release()}`;
}

/** One line per fact: CPU model, cores, memory, OS, Node.js, and the load when the run started. */
export function describeMachine(): string[] {
  const cpu = cpus()[0]?.model.trim() ?? "unknown CPU";
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");
  return [
    `CPU:     ${cpu}`,
    `cores:   ${availableParallelism()}`,
    `memory:  ${(totalmem() / 1024 ** 3).toFixed(1)} GB`,
    `OS:      ${osName()}`,
    `Node.js: ${process.version}`,
    `load:    ${load} (1, 5, 15 min averages at start; other work on the machine makes figures noisy)`,
  ];
}
