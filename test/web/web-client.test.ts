// The guarded web client against loopback pages: what it reads, and what it refuses to reach.
import assert from "node:assert/strict";
import { test } from "node:test";
import { privateKind } from "../../src/web/address-guard.ts";
import { redactUrl } from "../../src/web/redact-url.ts";
import { createWebClient, type WebError } from "../../src/web/web-client.ts";
import { describePage, fetchPage } from "../../src/web/web-fetch.ts";
import { startForwardProxy } from "../support/forward-proxy.ts";
import { ADMIN_SECRET, ARTICLE_FACT, NAV_TEXT, webPages } from "../support/web-pages.ts";

const signal = () => AbortSignal.timeout(60_000);

async function allowedClient(options: Parameters<typeof createWebClient>[0] = {}) {
  const pages = await webPages();
  return {
    pages,
    client: createWebClient({ allowPrivateHosts: [`127.0.0.1:${pages.port}`], ...options }),
  };
}

async function refusal(promise: Promise<unknown>): Promise<WebError> {
  try {
    await promise;
  } catch (error) {
    return error as WebError;
  }
  assert.fail("the fetch was not refused");
}

test("an article page becomes markdown of its article: title kept, navigation left out, links absolute", async () => {
  const { pages, client } = await allowedClient();
  const fetched = await fetchPage(client, `${pages.url}/article`, { signal: signal() });
  const text = describePage(fetched);
  assert.match(text, /^Title: Widget 3\.2 release notes$/m);
  assert.ok(text.includes(ARTICLE_FACT));
  assert.ok(!text.includes(NAV_TEXT), "navigation was kept");
  assert.ok(text.includes(`(${pages.url}/docs/migrate)`), "relative link not made absolute");
});

test("a PDF becomes its text, JSON and plain text stay as they are, an image is refused naming its type", async () => {
  const { pages, client } = await allowedClient();
  const pdf = await fetchPage(client, `${pages.url}/guide.pdf`, { signal: signal() });
  assert.equal(pdf.page.kind, "pdf");
  assert.match(pdf.page.text, /Run widget migrate to convert widget\.ini to widget\.toml/);
  assert.equal(pdf.page.title, "Widget migration guide");
  const data = await fetchPage(client, `${pages.url}/data.json`, { signal: signal() });
  assert.deepEqual(JSON.parse(data.page.text), { version: "3.2.0", deprecated: ["frob"] });
  const notes = await fetchPage(client, `${pages.url}/notes.txt`, { signal: signal() });
  assert.equal(notes.page.text, "Plain notes: widget 3.2.\n");
  const image = await refusal(fetchPage(client, `${pages.url}/logo.png`, { signal: signal() }));
  assert.match(image.message, /is image\/png .*does not read/);
});

test("a redirect chain is followed to its end and reported; a loop stops at the bound", async () => {
  const { pages, client } = await allowedClient();
  const fetched = await fetchPage(client, `${pages.url}/r1`, { signal: signal() });
  assert.equal(fetched.response.url, `${pages.url}/article?utm_source=x`);
  assert.equal(fetched.response.redirects.length, 3);
  assert.match(describePage(fetched), /Redirected from: .*\/r1 → .*\/r2 → .*\/r3/);
  const loop = await refusal(fetchPage(client, `${pages.url}/loop`, { signal: signal() }));
  assert.equal(loop.kind, "redirects");
});

test("a slow page is stopped at the timeout, a huge page and a gzip bomb at the size cap", async () => {
  const { pages, client } = await allowedClient({ timeoutMs: 1_500, maxBytes: 1024 * 1024 });
  const slow = await refusal(fetchPage(client, `${pages.url}/slow`, { signal: signal() }));
  assert.equal(slow.kind, "timeout");
  assert.match(slow.message, /within 2 s|within 1 s/);
  // The size cap is under test here, not the clock: a loaded machine may take long to stream 1 MiB.
  const patient = createWebClient({
    allowPrivateHosts: [`127.0.0.1:${pages.port}`],
    timeoutMs: 60_000,
    maxBytes: 1024 * 1024,
  });
  const sentBefore = pages.hugeBytesSent;
  const before = process.memoryUsage().rss;
  const huge = await refusal(fetchPage(patient, `${pages.url}/huge`, { signal: signal() }));
  assert.equal(huge.kind, "too_large");
  // The client hung up near the cap: the server got no further than the cap and socket buffers.
  assert.ok(pages.hugeBytesSent - sentBefore < 16 * 1024 * 1024, `${pages.hugeBytesSent} sent`);
  const bomb = await refusal(fetchPage(patient, `${pages.url}/bomb`, { signal: signal() }));
  assert.equal(bomb.kind, "too_large");
  assert.match(bomb.message, /after gzip decompression/);
  // The bomb was not inflated whole into memory (64 MiB).
  assert.ok(process.memoryUsage().rss - before < 48 * 1024 * 1024);
});

test("loopback, a name resolving to loopback, mapped IPv6 and odd IPv4 spellings are refused unless allowed", async () => {
  const pages = await webPages();
  const client = createWebClient();
  const hits = pages.secretHits;
  for (const url of [
    `${pages.url}/secret`,
    `http://localhost:${pages.port}/secret`,
    `http://[::ffff:127.0.0.1]:${pages.port}/secret`,
    `http://0x7f000001:${pages.port}/secret`,
    `http://2130706433:${pages.port}/secret`,
    `http://[::1]:${pages.port}/secret`,
    "http://169.254.169.254/latest/meta-data/",
  ]) {
    const error = await refusal(client.request(url, { signal: signal() }));
    assert.equal(error.kind, "private", `${url}: ${error.message}`);
    assert.match(error.message, /allowPrivateHosts/);
  }
  assert.equal(pages.secretHits, hits, "a refused fetch reached the server");
  // Listed by name and port, the same page is read; a person's approval of the host works too.
  const allowed = createWebClient({ allowPrivateHosts: [`localhost:${pages.port}`] });
  const asUrl = createWebClient({ allowPrivateHosts: [`http://localhost:${pages.port}/`] });
  await asUrl.request(`http://localhost:${pages.port}/notes.txt`, { signal: signal() });
  const page = await allowed.request(`http://localhost:${pages.port}/secret`, { signal: signal() });
  assert.equal(page.body.toString(), ADMIN_SECRET);
  const approved = await client.request(`${pages.url}/secret`, {
    signal: signal(),
    approvedHost: `127.0.0.1:${pages.port}`,
  });
  assert.equal(approved.body.toString(), ADMIN_SECRET);
});

test("a redirect to a private address is refused after the redirect, even from an allowed host", async () => {
  const { pages, client } = await allowedClient();
  const hits = pages.secretHits;
  const metadata = await refusal(client.request(`${pages.url}/to-metadata`, { signal: signal() }));
  assert.equal(metadata.kind, "private");
  assert.match(metadata.message, /169\.254\.169\.254 is a cloud metadata address/);
  const local = await refusal(client.request(`${pages.url}/to-localhost`, { signal: signal() }));
  assert.match(
    local.message,
    /localhost:\d+ resolves to (127\.0\.0\.1|::1), which is a loopback address/,
  );
  // A person's yes for the first host does not carry to the host it redirects to.
  const approved = createWebClient();
  const carried = await refusal(
    approved.request(`${pages.url}/to-localhost`, {
      signal: signal(),
      approvedHost: `127.0.0.1:${pages.port}`,
    }),
  );
  assert.equal(carried.kind, "private");
  assert.equal(pages.secretHits, hits);
});

test("the client connects to the address it checked: a name is resolved once, every answer checked", async () => {
  const pages = await webPages();
  let lookups = 0;
  // A resolver that answers a public address first and loopback the second time (DNS rebinding).
  const rebinding = createWebClient({
    resolve: async () =>
      lookups++ === 0 ? [{ address: "127.0.0.1", family: 4 }] : [{ address: "8.8.8.8", family: 4 }],
    allowPrivateHosts: [`rebind.test:${pages.port}`],
  });
  const page = await rebinding.request(`http://rebind.test:${pages.port}/notes.txt`, {
    signal: signal(),
  });
  assert.equal(page.body.toString(), "Plain notes: widget 3.2.\n");
  assert.equal(lookups, 1, "the name was resolved again to connect");
  // One private answer among public ones is enough to refuse.
  const mixed = createWebClient({
    resolve: async () => [
      { address: "93.184.216.34", family: 4 },
      { address: "10.0.0.5", family: 4 },
    ],
  });
  const error = await refusal(mixed.request("http://mixed.test/", { signal: signal() }));
  assert.match(error.message, /resolves to 10\.0\.0\.5, which is a private address/);
});

test("only http and https are fetched", async () => {
  const client = createWebClient();
  for (const url of ["file:///etc/passwd", "ftp://example.com/x", "gopher://example.com/"]) {
    const error = await refusal(client.request(url, { signal: signal() }));
    assert.equal(error.kind, "scheme");
  }
});

test("addresses are classified after every spelling: mapped, NAT64, 6to4, CGNAT, ULA, link-local", () => {
  const cases: Record<string, string | null> = {
    "127.0.0.1": "loopback",
    "10.1.2.3": "private",
    "172.31.255.255": "private",
    "192.168.1.1": "private",
    "100.100.100.200": "carrier-grade NAT",
    "169.254.169.254": "cloud metadata",
    "169.254.1.1": "link-local",
    "0.0.0.0": "reserved",
    "::1": "loopback",
    "::": "reserved",
    "fd00:ec2::254": "unique-local",
    "fe80::1": "link-local",
    "::ffff:127.0.0.1": "loopback (as IPv6 ::ffff:127.0.0.1)",
    "::ffff:7f00:1": "loopback (as IPv6 ::ffff:7f00:1)",
    "64:ff9b::a9fe:a9fe": "cloud metadata (as IPv6 64:ff9b::a9fe:a9fe)",
    "2002:c0a8:0101::1": "private (as IPv6 2002:c0a8:0101::1)",
    "8.8.8.8": null,
    "93.184.216.34": null,
    "2606:4700::1111": null,
  };
  for (const [address, kind] of Object.entries(cases))
    assert.equal(privateKind(address), kind, address);
});

test("secret-looking query parameters and passwords are redacted from shown URLs", () => {
  assert.equal(
    redactUrl("https://api.example.com/v1/x?api_key=SEKRET1&q=widgets&access_token=SEKRET2"),
    "https://api.example.com/v1/x?api_key=[redacted]&q=widgets&access_token=[redacted]",
  );
  assert.equal(
    redactUrl("https://user:hunter2@example.com/"),
    "https://redacted:redacted@example.com/",
  );
  assert.equal(redactUrl("https://ghp_abc123@github.com/o/r"), "https://redacted@github.com/o/r");
  assert.equal(
    redactUrl("https://app.example/cb#access_token=SEKRET3&token_type=bearer"),
    "https://app.example/cb#access_token=[redacted]&token_type=bearer",
  );
  assert.equal(
    redactUrl("https://s3.example/o?X-Amz-Credential=AKIA&X-Amz-Signature=abcd&x=1"),
    "https://s3.example/o?X-Amz-Credential=[redacted]&X-Amz-Signature=[redacted]&x=1",
  );
  assert.equal(redactUrl("https://example.com/?q=keyboard"), "https://example.com/?q=keyboard");
});

test("a proxy is honoured: names only the proxy resolves go through it; private addresses are still refused", async (t) => {
  const pages = await webPages();
  const proxy = await startForwardProxy();
  t.after(() => proxy.close());
  const client = createWebClient({ proxy: { HTTP_PROXY: proxy.url, NO_PROXY: "" } });
  // `.test` names resolve at the proxy only: the page can have come only through it.
  const page = await client.request(`http://pages.test:${pages.port}/notes.txt`, {
    signal: signal(),
  });
  assert.equal(page.body.toString(), "Plain notes: widget 3.2.\n");
  assert.deepEqual(proxy.seen, [`GET http://pages.test:${pages.port}/notes.txt`]);
  const refused = await refusal(
    client.request(`http://127.0.0.1:${pages.port}/secret`, { signal: signal() }),
  );
  assert.equal(refused.kind, "private");
  assert.equal(proxy.seen.length, 1, "a private address was sent to the proxy");
});

test("a resolver that never answers is bounded by the timeout", async () => {
  const client = createWebClient({ timeoutMs: 1_000, resolve: () => new Promise(() => {}) });
  const error = await refusal(client.request("http://hangs.test/", { signal: signal() }));
  assert.equal(error.kind, "timeout");
});

test("a configured search backend is trusted at its own origin only, not where it redirects", async () => {
  const pages = await webPages();
  const client = createWebClient();
  const hits = pages.secretHits;
  // The backend itself may be on this machine (a SearXNG on localhost)...
  const own = await client.request(`${pages.url}/notes.txt`, { signal: signal(), trusted: true });
  assert.equal(own.status, 200);
  // ...but a redirect from it to another private host is checked like any other.
  const error = await refusal(
    client.request(`${pages.url}/to-localhost`, { signal: signal(), trusted: true }),
  );
  assert.equal(error.kind, "private");
  assert.equal(pages.secretHits, hits);
});

test("a page's own <meta charset> is honoured; an encoding nex did not ask for is refused by name", async () => {
  const { pages, client } = await allowedClient();
  const latin = await fetchPage(client, `${pages.url}/latin1`, { signal: signal() });
  assert.equal(latin.page.title, "Café");
  assert.match(latin.page.text, /about the café/);
  const zstd = await refusal(fetchPage(client, `${pages.url}/zstd`, { signal: signal() }));
  assert.match(zstd.message, /answered in the zstd encoding, which nex does not decode/);
});
