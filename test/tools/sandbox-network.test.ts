// The sandbox network by host: commands under real bubblewrap reach an allowed loopback host through
// nex's proxy, are refused another with a note naming the setting, and cannot go around the proxy.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { connect, createServer as createNetServer } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { resolveConfig } from "../../src/runtime/config/index.ts";
import { projectSandboxNotices } from "../../src/runtime/config/project-sandbox.ts";
import { bwrapArgs } from "../../src/tools/sandbox/bwrap.ts";
import {
  entryFor,
  entryProblem,
  hostAllowlist,
} from "../../src/tools/sandbox/network-proxy/allowlist.ts";
import { startFilterProxy } from "../../src/tools/sandbox/network-proxy/filter-proxy.ts";
import { filterMount, SANDBOX_NODE } from "../../src/tools/sandbox/network-proxy/forwarder.ts";
import type { SandboxPolicy } from "../../src/tools/sandbox/policy.ts";
import { privateKind } from "../../src/web/index.ts";
import { sandboxMissing } from "../support/bwrap.ts";
import { host, run, sandbox } from "./helpers.ts";

describe("the allowlist", () => {
  test("presets, exact hosts, wildcards and ports: only what is listed, on 80 and 443 unless a port is named", () => {
    const allow = hostAllowlist(["npm", "example.com", "*.example.org", "10.0.0.5:8443"]);
    assert.deepEqual(allow.allows("registry.npmjs.org", 443), { entry: "npm", exact: false });
    assert.deepEqual(allow.allows("EXAMPLE.com.", 80), { entry: "example.com", exact: true });
    assert.equal(allow.allows("example.com", 22), null, "a bare host opens HTTP and HTTPS only");
    assert.equal(allow.allows("evil-example.com", 443), null);
    assert.deepEqual(allow.allows("a.b.example.org", 443), {
      entry: "*.example.org",
      exact: false,
    });
    assert.equal(allow.allows("example.org", 443), null, "a wildcard is the names under it");
    assert.equal(allow.allows("example.org.evil.net", 443), null);
    assert.deepEqual(allow.allows("10.0.0.5", 8443), { entry: "10.0.0.5:8443", exact: true });
    assert.equal(allow.allows("10.0.0.5", 443), null);
    assert.equal(hostAllowlist([]).allows("registry.npmjs.org", 443), null, "none by default");
  });

  test("what to add for a refused host: its preset, else the host and any unusual port", () => {
    assert.equal(entryFor("files.pythonhosted.org", 443), "pypi");
    assert.equal(entryFor("static.crates.io", 443), "crates");
    assert.equal(entryFor("Example.com", 80), "example.com");
    assert.equal(entryFor("127.0.0.3", 8080), "127.0.0.3:8080");
    assert.equal(entryFor("::1", 443), "[::1]");
  });

  test("entries that are not hosts are refused with what to write instead", () => {
    for (const good of [
      "npm",
      "crates",
      "a.example",
      "*.example.org",
      "localhost",
      "::1",
      "[::1]:80",
      "127.0.0.2:9",
    ])
      assert.equal(entryProblem(good), null, good);
    assert.match(entryProblem("npmm") ?? "", /neither a preset \(npm, pypi, crates, github\)/);
    assert.match(entryProblem("*.com") ?? "", /two labels or more/);
    assert.match(entryProblem("*") ?? "", /not a host/);
    assert.match(entryProblem("https://example.com/x") ?? "", /not a host/);
    assert.match(entryProblem("example.com:99999") ?? "", /port/);
  });
});

describe("the proxy on its socket", () => {
  /** Sends raw bytes to the proxy and reads its whole answer. */
  const ask = (socket: string, text: string) =>
    new Promise<string>((resolve) => {
      const client = connect(socket);
      let answer = "";
      client.on("data", (chunk) => {
        answer += String(chunk);
      });
      client.on("close", () => resolve(answer));
      client.on("error", () => resolve(answer));
      client.write(text);
    });

  test("odd requests get a clear answer and nex stays up; an allowed host that fails is said, not refused", async () => {
    const proxy = await startFilterProxy({
      allow: hostAllowlist(["127.0.0.2", "gone.example"]),
      addressKind: privateKind,
      resolve: async () => {
        throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
      },
    });
    try {
      // Port 80 as written in CONNECT (a URL would drop it): allowed, nothing listens, so 502.
      assert.match(
        await ask(proxy.socket, "CONNECT 127.0.0.2:80 HTTP/1.1\r\n\r\n"),
        /^HTTP\/1\.1 502 .*Could not connect to 127\.0\.0\.2:80/s,
      );
      assert.match(
        await ask(proxy.socket, "CONNECT nonsense HTTP/1.1\r\n\r\n"),
        /^HTTP\/1\.1 400 /,
      );
      assert.match(
        await ask(proxy.socket, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
        /^HTTP\/1\.1 400 .*absolute form/s,
      );
      assert.match(
        await ask(proxy.socket, "GET http://gone.example/ HTTP/1.1\r\nHost: gone.example\r\n\r\n"),
        /^HTTP\/1\.1 502 .*Could not resolve gone\.example \(ENOTFOUND\)/s,
      );
      assert.match(
        await ask(proxy.socket, "CONNECT 0x7f.1:443 HTTP/1.1\r\n\r\n"),
        /^HTTP\/1\.1 403 .*127\.0\.0\.1:443/s,
        "a spelling of an address is read as the address it is",
      );
      assert.deepEqual(
        proxy.refusals().map((one) => `${one.host}:${one.port}`),
        ["127.0.0.1:443"],
      );
      assert.deepEqual(proxy.failures().length, 2);
    } finally {
      proxy.close();
    }
  });
});

describe("the allowlist in the configuration", () => {
  const userConfig = (dir: string, sandbox: unknown) => {
    const path = join(dir, "config.json");
    writeFileSync(path, JSON.stringify({ sandbox }));
    return path;
  };

  test("the user's config and --allow-host make the list; a bad entry is a clear error", () => {
    const box = sandbox();
    const config = userConfig(box.root, { allowHosts: ["npm", "example.com"] });
    const resolved = resolveConfig(
      { config, allowHosts: ["pypi,crates", "npm"] },
      {},
      box.workspace,
    );
    assert.deepEqual(resolved.sandbox.allowHosts, ["npm", "example.com", "pypi", "crates"]);
    assert.equal(resolved.sandbox.network, false);
    assert.throws(
      () => resolveConfig({ config, allowHosts: ["*.com"] }, {}, box.workspace),
      /--allow-host: "\*\.com" is not a wildcard/,
    );
    const bad = userConfig(box.root, { allowHosts: ["pipy"] });
    assert.throws(
      () => resolveConfig({ config: bad }, {}, box.workspace),
      /sandbox\.allowHosts in the config file: "pipy" is neither a preset/,
    );
  });

  test("a repository-planted sandbox section widens nothing, and the user is told", () => {
    const box = sandbox();
    const planted = { sandbox: { allowHosts: ["127.0.0.3", "*.evil.example"], network: true } };
    for (const name of [".nex/config.json", ".nex/settings.json", ".claude/settings.json"]) {
      mkdirSync(join(box.workspace, name, ".."), { recursive: true });
      writeFileSync(join(box.workspace, name), JSON.stringify(planted));
    }
    const config = userConfig(box.root, { mode: "workspace-write" });
    const resolved = resolveConfig({ config }, {}, box.workspace);
    assert.deepEqual(resolved.sandbox.allowHosts, []);
    assert.equal(resolved.sandbox.network, false);
    const notices = projectSandboxNotices(box.workspace);
    assert.equal(notices.length, 3);
    assert.match(
      notices[0] ?? "",
      /^\.nex\/config\.json in this project asks the sandbox for hosts "127\.0\.0\.3", "\*\.evil\.example" and the whole network; a repository cannot widen the sandbox, so nex ignores it\. To allow hosts, add them to sandbox\.allowHosts in your own config/,
    );
  });
});

describe("the bubblewrap command line of a filtered command", () => {
  const policy: SandboxPolicy = {
    mode: "workspace-write",
    workspace: "/home/u/project",
    network: false,
    tmpDirs: ["/tmp"],
    writable: [],
    hiddenDirs: [],
    hiddenFiles: [],
    readOnly: [],
    runDir: "/run",
    resolverPaths: ["/run/systemd/resolve"],
    maxProcesses: 4096,
    tmpSizeBytes: 512 * 1024 * 1024,
  };

  test("its own network namespace still, the proxy's socket bound in, the proxy variables set, no resolver", () => {
    const mount = filterMount("/tmp/nex-net-x/proxy.sock", "/usr/bin/node", 4);
    const args = bwrapArgs(policy, "npm ci", "/home/u/project", false, mount);
    assert.ok(args.includes("--unshare-net"));
    assert.ok(args.join(" ").includes("--bind /tmp/nex-net-x/proxy.sock /dev/nex-proxy.sock"));
    assert.ok(
      args.indexOf("/dev/nex-proxy.sock") > args.indexOf("--dev"),
      "bound after /dev is made",
    );
    for (const name of [
      "HTTPS_PROXY",
      "https_proxy",
      "HTTP_PROXY",
      "ALL_PROXY",
      "npm_config_proxy",
    ])
      assert.ok(args.join(" ").includes(`--setenv ${name} http://127.0.0.1:3128`), name);
    assert.ok(!args.join(" ").includes("/run/systemd/resolve"), "names are resolved by the proxy");
    assert.equal(args.at(-3), "npm ci", "the command is still $1");
  });
});

describe("filtered commands under real bubblewrap", () => {
  const skip = sandboxMissing() ?? false;
  const servers: Server[] = [];
  const hits = { allowed: 0, refused: 0 };
  let allowedPort = 0;
  let refusedPort = 0;

  const listen = (address: string, name: keyof typeof hits) =>
    new Promise<number>((resolve) => {
      const server = createServer((req, res) => {
        hits[name] += 1;
        res.end(`${name} answered ${req.method} ${req.url} for ${req.headers.host}\n`);
      });
      servers.push(server);
      server.listen(0, address, () => {
        const bound = server.address();
        resolve(typeof bound === "object" && bound ? bound.port : 0);
      });
    });

  before(async () => {
    if (skip) return;
    allowedPort = await listen("127.0.0.2", "allowed");
    refusedPort = await listen("127.0.0.3", "refused");
  });
  after(() => {
    for (const server of servers) server.close();
  });

  // The test's names, as a resolver maps them: both lead to loopback addresses.
  const names: Record<string, string> = {
    "registry.test.example": "127.0.0.2",
    "mirror.wild.example": "127.0.0.2",
    "registry.npmjs.org": "127.0.0.2",
  };
  const resolveHost = async (name: string) => {
    const address = names[name];
    if (!address) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    return [{ address }];
  };
  const tools = (allowHosts: string[]) =>
    host(sandbox(), {
      mode: "approve_all",
      sandbox: {
        mode: "workspace-write",
        network: false,
        allowHosts,
        addressKind: privateKind,
        resolveHost,
      },
    });

  test("an allowed host is reached through the proxy, by plain HTTP and through CONNECT", {
    skip,
  }, async () => {
    const before = hits.allowed;
    const result = await run(tools([`127.0.0.2:${allowedPort}`]), "bash", {
      command:
        `curl -sS http://127.0.0.2:${allowedPort}/plain && curl -sS --proxytunnel http://127.0.0.2:${allowedPort}/tunnel && ` +
        `curl -sS -H 'Host: refused.example' http://127.0.0.2:${allowedPort}/fronted`,
    });
    assert.equal(result.isError, false, result.content);
    assert.match(
      result.content,
      new RegExp(`allowed answered GET /fronted for 127\\.0\\.0\\.2:${allowedPort}`),
      "the Host header names the host that was checked",
    );
    assert.match(result.content, /allowed answered GET \/plain/);
    assert.match(result.content, /allowed answered GET \/tunnel/);
    assert.equal(hits.allowed - before, 3);
    assert.doesNotMatch(result.content, /Blocked/);
  });

  test("a host not allowed is refused, never reached, and the model is told the host and the setting", {
    skip,
  }, async () => {
    const before = hits.refused;
    const result = await run(tools([`127.0.0.2:${allowedPort}`]), "bash", {
      command: `curl -sS http://127.0.0.3:${refusedPort}/a; curl -sS --proxytunnel http://127.0.0.3:${refusedPort}/b; curl -sS --noproxy '' --proxytunnel http://127.0.0.1:${allowedPort}/`,
    });
    assert.equal(hits.refused, before, "the refused server saw nothing");
    assert.ok(
      result.content.includes(
        `Blocked by the sandbox's network filter: 127.0.0.3:${refusedPort} (allow it with sandbox.allowHosts: ["127.0.0.3:${refusedPort}"] in your nex config, or --allow-host 127.0.0.3:${refusedPort}).`,
      ),
      result.content,
    );
    assert.ok(
      result.content.includes(`Blocked by the sandbox's network filter: 127.0.0.1:${allowedPort} `),
      "the host's own loopback is refused too",
    );
    assert.equal(
      result.content.split(`network filter: 127.0.0.3:${refusedPort} `).length,
      // Once in curl's output (the proxy's 403 body) and once as the note; both requests, one note.
      3,
      result.content,
    );
  });

  test("a name listed by itself may lead to loopback; one under a wildcard or a preset never does", {
    skip,
  }, async () => {
    const result = await run(
      tools([`registry.test.example:${allowedPort}`, `*.wild.example:${allowedPort}`, "npm"]),
      "bash",
      {
        command:
          `curl -sS http://registry.test.example:${allowedPort}/named; ` +
          `curl -sS http://mirror.wild.example:${allowedPort}/wild; ` +
          "curl -sS --proxytunnel https://registry.npmjs.org/",
      },
    );
    assert.match(result.content, /allowed answered GET \/named/);
    assert.doesNotMatch(result.content, /\/wild/);
    assert.match(
      result.content,
      /network filter: mirror\.wild\.example:\d+ resolves to a loopback address \(127\.0\.0\.2\), which only a host listed by its own name may reach \(allow it with sandbox\.allowHosts: \["mirror\.wild\.example:\d+"\]/,
    );
    assert.match(
      result.content,
      /network filter: registry\.npmjs\.org:443 resolves to a loopback address \(127\.0\.0\.2\), which only a host listed by its own name may reach \(allow it with sandbox\.allowHosts: \["registry\.npmjs\.org"\]/,
    );
  });

  test("a connection around the proxy goes nowhere: no route out, the host's loopback and abstract sockets out of reach", {
    skip,
  }, async () => {
    const abstract = createNetServer((socket) => socket.end("host abstract socket\n"));
    const name = `nex-test-${process.pid}`;
    await new Promise<void>((resolve) => abstract.listen(`\0${name}`, resolve));
    try {
      const before = hits.allowed;
      const result = await run(tools([`127.0.0.2:${allowedPort}`]), "bash", {
        command:
          `curl -sS --noproxy '*' -m 5 http://127.0.0.2:${allowedPort}/direct; echo "direct:$?"; ` +
          `curl -sS --noproxy '*' -m 5 http://192.0.2.1/ ; echo "route:$?"; ` +
          // nex's Node.js as the sandbox sees it: where the checkout lies (a /tmp clone) may be hidden.
          `${SANDBOX_NODE} -e 'require("net").connect("\\0${name}").on("data", (d) => console.log("GOT", String(d))).on("error", (e) => console.log("abstract:", e.code))'`,
      });
      assert.equal(hits.allowed, before, "the allowed server saw no direct request");
      assert.match(result.content, /direct:7/, "connection refused inside the sandbox's namespace");
      assert.match(result.content, /route:(7|28)/);
      assert.match(result.content, /abstract: ECONNREFUSED/);
      assert.doesNotMatch(result.content, /GOT/);
    } finally {
      abstract.close();
    }
  });

  test("no allowlist: no proxy and no proxy variables, the network off as before", {
    skip,
  }, async () => {
    const result = await run(tools([]), "bash", {
      command: `echo "proxy:[$HTTPS_PROXY]"; test -e /dev/nex-proxy.sock && echo socket; curl -sS -m 5 http://127.0.0.2:${allowedPort}/; true`,
    });
    assert.match(result.content, /proxy:\[\]/);
    assert.doesNotMatch(result.content, /socket/);
    assert.doesNotMatch(result.content, /allowed answered/);
  });
});
