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
  "s.bind(('127.0.0.1', 0))",
  "print(s.getsockname()[1], flush=True)",
  "sys.stdin.read()",
].join("\n");

const held: ChildProcess[] = [];
after(() => {
  for (const child of held) child.kill();
});

/** A port on 127.0.0.1 with nothing listening, held until the test file ends. */
export async function closedPort(): Promise<number> {
  if (spawnSync("python3", ["-c", "0"]).status === 0) {
    const child = spawn("python3", ["-c", HOLD], { stdio: ["pipe", "pipe", "inherit"] });
    held.push(child);
    const port = await new Promise<number>((resolve, reject) => {
      let text = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes("\n")) resolve(Number(text.trim()));
      });
      child.on("error", reject);
      child.on("exit", () => reject(new Error("python3 could not hold a port")));
    });
    return port;
  }
  // Without Python: a port bound and released at once (another process could take it meanwhile).
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
