// A seccomp program (classic BPF, as bubblewrap's `--seccomp FD` loads it) that refuses to make a
// setuid or setgid file. A command running as root owns what it creates and may set any mode on it
// with no capability at all, so neither dropped capabilities nor `nosuid` mounts (which hold inside
// the sandbox only) keep a setuid-root copy of a shell out of the workspace, where anyone would run
// it later. Refused: chmod-like calls and file creation (open, creat, mknod) whose mode carries
// S_ISUID or S_ISGID; openat2 and io_uring (whose modes a filter cannot read) answer ENOSYS, so
// callers fall back to plain calls.
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const S_SETID = 0o6000;
const EPERM = 1;
const ENOSYS = 38;

// Classic BPF opcodes and seccomp's return values.
const LD_ABS = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JGE = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const JSET = 0x45; // BPF_JMP | BPF_JSET | BPF_K
const RET = 0x06; // BPF_RET | BPF_K
const ALLOW = 0x7fff0000;
const errno = (code: number) => 0x00050000 | code;
// struct seccomp_data: nr, arch, instruction pointer, then six 64-bit arguments (low word first).
const NR = 0;
const ARCH = 4;
const arg = (index: number) => 16 + 8 * index;

interface Syscalls {
  arch: number;
  /** Syscall number → the index of its mode argument. */
  withMode: [number, number][];
  /** Calls refused with ENOSYS outright. */
  unsupported: number[];
  /** Numbers at or above this are another ABI (x32) and refused. */
  abiLimit?: number;
}

const TABLES: Syscalls[] = [
  {
    arch: 0xc000003e, // x86_64
    // chmod, fchmod, fchmodat, fchmodat2, open, creat, openat, mknod, mknodat
    withMode: [
      [90, 1],
      [91, 1],
      [268, 2],
      [452, 2],
      [2, 2],
      [85, 1],
      [257, 3],
      [133, 1],
      [259, 2],
    ],
    unsupported: [437, 425], // openat2, io_uring_setup
    abiLimit: 0x40000000,
  },
  {
    arch: 0x40000003, // i386 (a 32-bit program on a 64-bit kernel)
    withMode: [
      [15, 1],
      [94, 1],
      [306, 2],
      [452, 2],
      [5, 2],
      [8, 1],
      [295, 3],
      [14, 1],
      [297, 2],
    ],
    unsupported: [437, 425],
  },
  {
    arch: 0xc00000b7, // aarch64: only the *at calls exist
    withMode: [
      [52, 1],
      [53, 2],
      [452, 2],
      [56, 3],
      [33, 2],
    ],
    unsupported: [437, 425],
  },
];

type Step = { op: number; k: number; onTrue?: string; onFalse?: string } | { label: string };

/** The filter as the bytes of a `struct sock_filter` array, little-endian (x86_64, aarch64). */
export function setidFilter(): Buffer {
  const steps: Step[] = [{ op: LD_ABS, k: ARCH }];
  for (const table of TABLES) steps.push({ op: JEQ, k: table.arch, onTrue: `arch${table.arch}` });
  steps.push({ op: RET, k: ALLOW });
  for (const table of TABLES) {
    const tag = table.arch;
    steps.push({ label: `arch${tag}` }, { op: LD_ABS, k: NR });
    if (table.abiLimit) steps.push({ op: JGE, k: table.abiLimit, onTrue: "nosys" });
    for (const [nr, index] of table.withMode)
      steps.push({ op: JEQ, k: nr, onTrue: `mode${index}` });
    for (const nr of table.unsupported) steps.push({ op: JEQ, k: nr, onTrue: "nosys" });
    steps.push({ op: RET, k: ALLOW });
  }
  for (const index of [1, 2, 3])
    steps.push(
      { label: `mode${index}` },
      { op: LD_ABS, k: arg(index) },
      { op: JSET, k: S_SETID, onTrue: "refuse" },
      { op: RET, k: ALLOW },
    );
  steps.push(
    { label: "refuse" },
    { op: RET, k: errno(EPERM) },
    { label: "nosys" },
    { op: RET, k: errno(ENOSYS) },
  );
  return assemble(steps);
}

/** Resolves labels into the forward jump offsets BPF counts from the next instruction. */
function assemble(steps: Step[]): Buffer {
  const at = new Map<string, number>();
  const code: { op: number; k: number; onTrue?: string; onFalse?: string }[] = [];
  for (const step of steps) {
    if ("label" in step) at.set(step.label, code.length);
    else code.push(step);
  }
  const out = Buffer.alloc(code.length * 8);
  code.forEach((step, i) => {
    const jump = (label: string | undefined) => {
      if (label === undefined) return 0;
      const offset = (at.get(label) ?? -1) - i - 1;
      if (offset < 0 || offset > 255) throw new Error(`seccomp jump to ${label} out of range`);
      return offset;
    };
    const base = i * 8;
    out.writeUInt16LE(step.op, base);
    out.writeUInt8(jump(step.onTrue), base + 2);
    out.writeUInt8(jump(step.onFalse), base + 3);
    out.writeUInt32LE(step.k >>> 0, base + 4);
  });
  return out;
}

let written: string | null = null;

/**
 * The filter in a file for a launcher to open as bubblewrap's `--seccomp` descriptor: one per user
 * under the OS temp folder, in a 0700 folder of the user's own, named by its content and checked
 * before use (another user cannot swap it). Kept across runs: a nex killed outright leaves nothing.
 */
export function setidFilterFile(): string {
  if (written) return written;
  const program = setidFilter();
  const uid = process.getuid?.() ?? 0;
  const dir = join(tmpdir(), `nex-seccomp-${uid}`);
  const file = join(
    dir,
    `setid-${createHash("sha256").update(program).digest("hex").slice(0, 16)}.bpf`,
  );
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch {
    // Made before (checked below).
  }
  const folder = lstatSync(dir);
  if (!folder.isDirectory() || folder.uid !== uid || (folder.mode & 0o077) !== 0)
    throw new Error(`${dir} is not a private folder of this user; remove it and try again`);
  let current: Buffer | null = null;
  try {
    current = readFileSync(file);
  } catch {
    // Not written yet.
  }
  if (!current?.equals(program)) {
    const temp = `${file}.${process.pid}`;
    rmSync(temp, { force: true });
    writeFileSync(temp, program, { mode: 0o400 });
    renameSync(temp, file);
  }
  written = file;
  return file;
}
