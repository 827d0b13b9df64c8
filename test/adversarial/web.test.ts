// The web tools where a person is in the loop (the chat's approval of a private address, shown with
// its URL and warning) and where a run is stopped in the middle of research.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, startNex } from "../support/cli.ts";
import { startForwardProxy } from "../support/forward-proxy.ts";
import { startStubEndpoint, status } from "../support/stub-endpoint.ts";
import { hang, openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { ADMIN_SECRET, webPages } from "../support/web-pages.ts";
import { startNexTui } from "../tui/cli-harness.ts";
import { answerPrompt, idleShown, typeAndSubmit } from "../tui/tui-harness.ts";

function flat(screen: string): string {
  return screen.replace(/[│\n]/g, " ").replace(/\s+/g, " ");
}

test("chat: a fetch of a name resolving to loopback asks with the URL and why; a yes reads that page once", async (t) => {
  const pages = await webPages();
  const hits = pages.secretHits;
  const url = `http://localhost:${pages.port}/secret?token=TOKEN-99aa`;
  const nex = await startNexTui([
    openaiToolCall({ name: "web_fetch", args: { url } }),
    openaiText("Read the admin page."),
  ]);
  t.after(() => nex.close());
  await typeAndSubmit(nex.pty, "read the local admin page");
  await nex.pty.waitFor("Allow web_fetch?");
  const prompt = flat(nex.pty.screen());
  assert.match(prompt, /web_fetch http:\/\/localhost:\d+\/secret\?token=\[redacted\]/);
  assert.match(prompt, /resolves to (127\.0\.0\.1|::1), which is a loopback address/);
  assert.ok(!prompt.includes("TOKEN-99aa"), "the key in the URL was shown");
  assert.equal(pages.secretHits, hits, "fetched before the answer");
  await answerPrompt(nex.pty, "y");
  await nex.pty.waitFor("Read the admin page.");
  const screen = await nex.pty.waitUntil(idleShown, "idle prompt");
  assert.equal(pages.secretHits, hits + 1);
  assert.match(nex.chatRequests()[1]?.rawBody ?? "", new RegExp(ADMIN_SECRET));
  // The chat shows the page's size beside its URL.
  assert.match(
    flat(screen),
    /22 bytes of text from http:\/\/localhost:\d+\/secret\?token=\[redacted\]/,
  );
});

test("chat: a private fetch denied is never sent; the model is told why it needed approval", async (t) => {
  const pages = await webPages();
  const hits = pages.secretHits;
  const nex = await startNexTui([
    openaiToolCall({ name: "web_fetch", args: { url: `http://127.0.0.1:${pages.port}/secret` } }),
    openaiText("Understood."),
  ]);
  t.after(() => nex.close());
  await typeAndSubmit(nex.pty, "read it");
  await nex.pty.waitFor("Allow web_fetch?");
  await answerPrompt(nex.pty, "n");
  await nex.pty.waitFor("Why not?");
  nex.pty.write("\r");
  await nex.pty.waitFor("Understood.");
  assert.equal(pages.secretHits, hits);
  assert.match(
    nex.chatRequests()[1]?.rawBody ?? "",
    /it needed approval: 127\.0\.0\.1:\d+ is a loopback address/,
  );
});

test("research stops at an interrupt while a page is being summarised: no further request, exit 130", async () => {
  const pages = await webPages();
  const box = makeSandbox();
  mkdirSync(join(box.env.XDG_CONFIG_HOME ?? "", "nex"), { recursive: true });
  writeFileSync(
    join(box.env.XDG_CONFIG_HOME ?? "", "nex", "config.json"),
    JSON.stringify({
      web: {
        allowPrivateHosts: [`127.0.0.1:${pages.port}`],
        search: [{ type: "searxng", url: `${pages.url}/searxng` }],
        keyless: false,
      },
    }),
  );
  let summaryAsked: () => void = () => {};
  const asked = new Promise<void>((resolve) => {
    summaryAsked = resolve;
  });
  const stub = await startStubEndpoint({
    handler: (request) => {
      if (!request.path.endsWith("/chat/completions")) return status(404, { body: {} });
      if (request.rawBody.includes("You summarise one web page")) {
        summaryAsked();
        return hang();
      }
      return openaiToolCall({ name: "research", args: { question: "What replaces frob()?" } });
    },
  });
  const run = startNex(
    [
      "run",
      "--yes",
      "--json",
      "--model",
      "m",
      "--base-url",
      `${stub.url}/v1`,
      "--data-dir",
      box.dataDir,
      "research it",
    ],
    { cwd: box.workspace, env: { ...box.env, OPENAI_API_KEY: "test" } },
  );
  try {
    await asked;
    const before = stub.requests.length;
    run.child.kill("SIGINT");
    const result = await run.done;
    assert.equal(result.code, 130);
    assert.match(
      result.stdout,
      /"type":"tool_progress".*"message":"summarising: Widget 3\.2 release notes"/,
    );
    assert.equal(stub.requests.length, before, "a request after the interrupt");
  } finally {
    run.child.kill("SIGKILL");
    await stub.close();
  }
});

test("nex run fetches through the user's HTTP_PROXY: a name only the proxy resolves is read", async (t) => {
  const pages = await webPages();
  const proxy = await startForwardProxy();
  t.after(() => proxy.close());
  const box = makeSandbox();
  const url = `http://pages.test:${pages.port}/notes.txt`;
  const scripts = [openaiToolCall({ name: "web_fetch", args: { url } }), openaiText("done")];
  const stub = await startStubEndpoint({
    handler: (request) =>
      request.path.endsWith("/chat/completions")
        ? (scripts.shift() ?? openaiText("done"))
        : status(404, { body: {} }),
  });
  t.after(() => stub.close());
  const result = await startNex(
    [
      "run",
      "--yes",
      "--model",
      "m",
      "--base-url",
      `${stub.url}/v1`,
      "--data-dir",
      box.dataDir,
      "fetch",
    ],
    { cwd: box.workspace, env: { ...box.env, OPENAI_API_KEY: "test", HTTP_PROXY: proxy.url } },
  ).done;
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(proxy.seen, [`GET ${url}`]);
  const second = stub.requests.filter((r) => r.path.endsWith("/chat/completions"))[1];
  assert.match(second?.rawBody ?? "", /Plain notes: widget 3\.2/);
});

test("chat: a fetch asks showing its URL; 'a' approves web_fetch for the session; each block shows title and size", async (t) => {
  const pages = await webPages();
  const nex = await startNexTui(
    [
      openaiToolCall({ name: "web_fetch", args: { url: `${pages.url}/article` } }),
      openaiToolCall({ name: "web_fetch", args: { url: `${pages.url}/guide.pdf` } }),
      openaiText("Both pages read."),
    ],
    {
      seed: async ({ workspace }) => {
        const dir = join(workspace, "..", "config", "nex");
        mkdirSync(dir, { recursive: true });
        writeFileSync(
          join(dir, "config.json"),
          JSON.stringify({ web: { allowPrivateHosts: [`127.0.0.1:${pages.port}`] } }),
        );
      },
    },
  );
  t.after(() => nex.close());
  await typeAndSubmit(nex.pty, "read the release notes");
  await nex.pty.waitFor("Allow web_fetch?");
  const prompt = flat(nex.pty.screen());
  assert.match(prompt, /web_fetch http:\/\/127\.0\.0\.1:\d+\/article/);
  assert.ok(!prompt.includes("⚠"), "an allowed host is not warned about");
  await answerPrompt(nex.pty, "a");
  await nex.pty.waitFor("Both pages read.");
  const screen = flat(await nex.pty.waitUntil(idleShown, "idle prompt"));
  assert.match(
    screen,
    /Widget 3\.2 release notes: [\d,]+ bytes of text from http:\/\/127\.0\.0\.1:\d+\/article/,
  );
  assert.match(
    screen,
    /Widget migration guide: [\d,]+ bytes of text from http:\/\/127\.0\.0\.1:\d+\/guide\.pdf/,
  );
  assert.equal((screen.match(/Allow web_fetch\?/g) ?? []).length, 0, "asked again after 'a'");
});
