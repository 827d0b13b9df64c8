// Loopback web pages and search APIs for the web tools' tests: an article with navigation, a PDF, a
// redirect chain and loop, a slow page, a huge page, a gzip bomb, a redirect to a private address,
// an image; and SearXNG, Brave, Tavily and Exa answering in their documented shapes (results,
// errors, rate limits). One server per process, started on first use, never keeping it alive.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { tinyPdf } from "../web/tiny-pdf.ts";

export const ARTICLE_FACT = "frobnicate() replaces frob() in Widget 3.2";
export const NAV_TEXT = "NAVIGATION-MENU-ITEM";
export const ADMIN_SECRET = "ADMIN-PAGE-SECRET-4411";

const article = `<!doctype html><html><head><title>Widget 3.2 release notes</title></head>
<body><nav><a href="/">${NAV_TEXT} Home</a> | <a href="/docs">Docs</a> | <a href="/blog">Blog</a> | <a href="/pricing">Pricing</a></nav>
<main><article><h1>Widget 3.2 release notes</h1>
<p>Widget 3.2 is out. In short: ${ARTICLE_FACT}. The old name still works but logs a deprecation warning on every call, and it will be removed in Widget 4.0.</p>
<p>Configuration moves from widget.ini to widget.toml; run <code>widget migrate</code> once. See <a href="/docs/migrate">the migration guide</a>.</p>
<p>The default timeout rises from 10 to 30 seconds because slow networks caused spurious failures in 3.1.</p>
</article></main><footer>© Widget Inc. Privacy Terms</footer></body></html>`;

const changelog = `<!doctype html><html><head><title>Widget changelog</title></head><body><nav>${NAV_TEXT}</nav>
<article><h1>Changelog</h1><p>3.2.0: frob() is deprecated in favour of frobnicate(); widget.ini becomes widget.toml. 3.1.4: fixes a crash on empty configuration files when the network is slow.</p>
<p>3.1.0: adds the migrate command, used again by 3.2 for the move to widget.toml.</p></article></body></html>`;

const pdf = tinyPdf(
  ["Widget 3.2 migration guide (PDF)", "Run widget migrate to convert widget.ini to widget.toml."],
  "Widget migration guide",
);

/** What the search APIs answer: results (the default), an error, or a rate limit. */
export type SearchMode = "ok" | "rate_limited" | "bad_key" | "server_error";

export interface WebPages {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Requests each backend received, by name. */
  searchCalls: Record<string, number>;
  /** The query strings of requests for /secret (none may ever arrive). */
  secretHits: number;
  /** Bytes of /huge written before its reader hung up, in all. */
  hugeBytesSent: number;
}

let shared: Promise<WebPages> | null = null;

/** The shared pages server of this process. */
export function webPages(): Promise<WebPages> {
  shared ??= start();
  return shared;
}

function start(): Promise<WebPages> {
  const state: WebPages = {
    url: "",
    port: 0,
    searchCalls: {},
    secretHits: 0,
    hugeBytesSent: 0,
  };
  // Built now, not while a test measures the memory of a fetch: it allocates the 64 MiB it inflates to.
  bomb();
  const server: Server = createServer((req, res) => {
    void route(req, res, state);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      server.unref();
      const { port } = server.address() as AddressInfo;
      state.port = port;
      state.url = `http://127.0.0.1:${port}`;
      resolve(state);
    });
  });
}

async function body(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of req) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

function send(
  res: ServerResponse,
  status: number,
  type: string,
  content: string | Buffer,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": type, ...headers });
  res.end(content);
}

function json(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  send(res, status, "application/json", JSON.stringify(value), headers);
}

/** The hits every backend returns: the article and the changelog, with their own spellings of the URL. */
function hits(base: string) {
  return [
    {
      title: "Widget 3.2 release notes",
      url: `${base}/article`,
      snippet: "frobnicate() replaces frob()",
    },
    {
      title: "Widget changelog",
      url: `${base}/changelog#top`,
      snippet: "3.2.0: frob() is deprecated",
    },
    {
      title: "Widget migration guide (PDF)",
      url: `${base}/guide.pdf`,
      snippet: "Run widget migrate",
    },
  ];
}

async function route(req: IncomingMessage, res: ServerResponse, state: WebPages): Promise<void> {
  const url = new URL(req.url ?? "/", state.url);
  const path = url.pathname;
  // A backend's address may name how it answers: /brave-rate_limited/…, /tavily-bad_key/….
  const search = /^\/(searxng|brave|tavily|exa)(?:-(rate_limited|bad_key|server_error))?\//.exec(
    path,
  );
  if (search)
    return answerSearch(
      search[1] as string,
      (search[2] as SearchMode | undefined) ?? "ok",
      req,
      res,
      state,
      url,
    );
  switch (path) {
    case "/article":
      return send(res, 200, "text/html; charset=utf-8", article);
    case "/changelog":
      return send(res, 200, "text/html; charset=utf-8", changelog);
    case "/guide.pdf":
      return send(res, 200, "application/pdf", pdf);
    case "/data.json":
      return send(res, 200, "application/json", '{"version":"3.2.0","deprecated":["frob"]}');
    case "/big.txt":
      return send(
        res,
        200,
        "text/plain; charset=utf-8",
        Array.from({ length: 4000 }, (_, i) => `line ${i + 1} of a long page about widgets\n`).join(
          "",
        ),
      );
    case "/latin1":
      // No charset in the header: the page's own <meta> says windows-1252 ("café" is 63 61 66 e9).
      return send(
        res,
        200,
        "text/html",
        Buffer.concat([
          Buffer.from('<html><head><meta charset="windows-1252"><title>Caf'),
          Buffer.from([0xe9]),
          Buffer.from("</title></head><body><p>A page about the caf"),
          Buffer.from([0xe9]),
          Buffer.from(
            " in plain old Windows-1252, long enough to be an article.</p></body></html>",
          ),
        ]),
      );
    case "/zstd":
      return send(res, 200, "text/plain", Buffer.from("not really zstd"), {
        "content-encoding": "zstd",
      });
    case "/notes.txt":
      return send(res, 200, "text/plain; charset=utf-8", "Plain notes: widget 3.2.\n");
    case "/logo.png":
      return send(
        res,
        200,
        "image/png",
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]),
      );
    case "/r1":
      res.writeHead(302, { location: "/r2" });
      return void res.end();
    case "/r2":
      res.writeHead(301, { location: `${state.url}/r3` });
      return void res.end();
    case "/r3":
      res.writeHead(307, { location: "/article?utm_source=x" });
      return void res.end();
    case "/loop":
      res.writeHead(302, { location: "/loop" });
      return void res.end();
    case "/to-metadata":
      res.writeHead(302, {
        location: "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
      });
      return void res.end();
    case "/to-localhost":
      // The same server under another name: `localhost` resolves to a loopback address.
      res.writeHead(302, { location: `http://localhost:${state.port}/secret` });
      return void res.end();
    case "/secret":
      state.secretHits++;
      return send(res, 200, "text/plain", ADMIN_SECRET);
    case "/slow":
      // Headers at once, then nothing for a long time.
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("the start of a page that never ends\n");
      setTimeout(() => res.end("late"), 120_000).unref();
      return;
    case "/huge": {
      res.writeHead(200, { "content-type": "text/plain" });
      const chunk = Buffer.alloc(64 * 1024, "a");
      let sent = 0;
      const pump = () => {
        while (sent < 64 * 1024 * 1024) {
          sent += chunk.length;
          state.hugeBytesSent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      res.on("close", () => {
        sent = Number.POSITIVE_INFINITY;
      });
      return pump();
    }
    case "/bomb":
      // 64 MiB of zeros, gzipped to about 64 KiB; announced as a small text page.
      return send(res, 200, "text/plain", bomb(), { "content-encoding": "gzip" });
    default:
      return send(res, 404, "text/html", "<html><body><h1>Not Found</h1></body></html>");
  }
}

let bombBytes: Buffer | null = null;
function bomb(): Buffer {
  bombBytes ??= gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
  return bombBytes;
}

async function answerSearch(
  name: string,
  mode: SearchMode,
  req: IncomingMessage,
  res: ServerResponse,
  state: WebPages,
  url: URL,
): Promise<void> {
  state.searchCalls[name] = (state.searchCalls[name] ?? 0) + 1;
  const sent = req.method === "POST" ? await body(req) : "";
  const base = state.url;
  const found = hits(base);
  switch (name) {
    // SearXNG: GET /search?q=…&format=json → { query, results: [{ url, title, content, engine }] };
    // 403 when the json format is not enabled, 429 from its limiter.
    case "searxng":
      if (mode === "rate_limited") return send(res, 429, "text/html", "<h1>Too Many Requests</h1>");
      if (mode === "bad_key") return send(res, 403, "text/html", "<h1>403 Forbidden</h1>");
      if (mode === "server_error") return send(res, 500, "text/html", "Internal Server Error");
      if (url.searchParams.get("format") !== "json")
        return send(res, 403, "text/html", "Forbidden");
      return json(res, 200, {
        query: url.searchParams.get("q"),
        results: found.map((hit) => ({
          url: hit.url,
          title: hit.title,
          content: hit.snippet,
          engine: "stub",
        })),
      });
    // Brave: GET /res/v1/web/search with X-Subscription-Token → { web: { results: [{ title, url,
    // description }] } }; errors { type: "ErrorResponse", error: { code, detail, status } }.
    case "brave":
      if (mode === "rate_limited")
        return json(
          res,
          429,
          {
            type: "ErrorResponse",
            error: {
              code: "RATE_LIMITED",
              detail: "Request rate limit exceeded for plan.",
              status: 429,
            },
          },
          { "x-ratelimit-reset": "1, 1419" },
        );
      if (mode === "bad_key" || req.headers["x-subscription-token"] !== "brave-test-key")
        return json(res, 422, {
          type: "ErrorResponse",
          error: {
            code: "SUBSCRIPTION_TOKEN_INVALID",
            detail: "The provided subscription token is invalid.",
            status: 422,
          },
        });
      if (mode === "server_error")
        return json(res, 500, { type: "ErrorResponse", error: { detail: "Internal error" } });
      return json(res, 200, {
        type: "search",
        web: {
          type: "search",
          results: found.map((hit) => ({
            title: hit.title,
            url: hit.url,
            description: `<strong>${hit.snippet}</strong>`,
          })),
        },
      });
    // Tavily: POST /search, Authorization: Bearer → { query, results: [{ title, url, content, score }] };
    // 401 { detail: { error } }, 429, 432 for a plan's limit.
    case "tavily":
      if (mode === "rate_limited")
        return json(
          res,
          429,
          { detail: { error: "Rate limit exceeded" } },
          { "retry-after": "30" },
        );
      if (mode === "bad_key" || req.headers.authorization !== "Bearer tvly-test-key")
        return json(res, 401, { detail: { error: "Unauthorized: missing or invalid API key." } });
      if (mode === "server_error")
        return json(res, 500, { detail: { error: "Internal Server Error" } });
      return json(res, 200, {
        query: (JSON.parse(sent) as { query: string }).query,
        results: found.map((hit, i) => ({
          title: hit.title,
          url: hit.url,
          content: hit.snippet,
          score: 0.9 - i / 10,
        })),
      });
    // Exa: POST /search, x-api-key → { results: [{ id, title, url, highlights? }] }; errors { error }.
    case "exa":
      if (mode === "rate_limited")
        return json(res, 429, { error: "You have exceeded your rate limit" });
      if (mode === "bad_key" || req.headers["x-api-key"] !== "exa-test-key")
        return json(res, 401, { error: "Invalid API key" });
      if (mode === "server_error") return json(res, 500, { error: "Internal Server Error" });
      return json(res, 200, {
        requestId: "stub",
        results: [...found].reverse().map((hit) => ({
          id: hit.url,
          title: hit.title,
          url: hit.url,
          highlights: [hit.snippet],
        })),
      });
  }
}
