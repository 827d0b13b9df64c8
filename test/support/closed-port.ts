// A local port that refuses connections for as long as a test needs it. Taking a free port and
// releasing it is not enough on a busy machine: another test's server may be given it in between, and
// the "unreachable" endpoint answers. A socket bound without listening holds the port (nobody else can
// bind it) while every connection to it is refused.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { after } from "node:test";

const HOLD = [
  "import socket, sys",
  "s = socket.socket()",
  "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)",
  "s.bind(('127.0.0.1', int(sys.argv[1])))",
  "print(s.getsockname()[1], flush=True)",
  "sys.stdin.read()",
].join("\n");

const held: ChildProcess[] = [];
after(() => {
  for (const child of held) child.kill();
});

/**
 * A port on 127.0.0.1 with nothing listening, held until the test file ends: a free one, or `port`
 * (a server's the test just closed, which another test's server could otherwise be given).
 */
export async function closedPort(port = 0): Promise<number> {
  if (spawnSync("python3", ["-c", "0"]).status === 0) {
    const child = spawn("python3", ["-c", HOLD, String(port)], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    held.push(child);
    return await new Promise<number>((resolve, reject) => {
      let text = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes("\n")) resolve(Number(text.trim()));
      });
      child.on("error", reject);
      child.on("exit", () => reject(new Error("python3 could not hold a port")));
    });
  }
  // Without Python: a port bound and released at once (another process could take it meanwhile).
  if (port) return port;
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const free = typeof address === "object" && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return free;
}
