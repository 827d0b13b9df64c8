// Recorded answers of the keyless search backends and arXiv (test/web/fixtures/), served on
// 127.0.0.1: DuckDuckGo's HTML results page (results, none, a bot check), Wikipedia's search API
// (results, an error in the body) and arXiv's Atom feed (papers, none, an error entry, a limit);
// Hacker News, Stack Exchange and GitHub answers in their APIs' documented shapes (results, a
// throttle, a rate limit, a failing gateway).
// Each request is counted with its query and times, so tests see what was asked and how often.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

const FIXTURES = join(import.meta.dirname, "..", "web", "fixtures");

export interface KeylessPages {
  url: string;
  port: number;
  /** Each request: its path, query, when it arrived and when its answer was sent whole (ms). */
  requests: { path: string; query: URLSearchParams; at: number; ended?: number }[];
}

let shared: Promise<KeylessPages> | null = null;

export function keylessPages(): Promise<KeylessPages> {
  shared ??= new Promise((resolve) => {
    const state: KeylessPages = { url: "", port: 0, requests: [] };
    const fixture = (name: string) => readFileSync(join(FIXTURES, name));
    const server: Server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const request: KeylessPages["requests"][number] = {
        path: url.pathname,
        query: url.searchParams,
        at: Date.now(),
      };
      state.requests.push(request);
      res.on("finish", () => {
        request.ended = Date.now();
      });
      const answer = (status: number, type: string, file: string, headers = {}) => {
        res.writeHead(status, { "content-type": type, ...headers });
        res.end(fixture(file));
      };
      const html = "text/html; charset=UTF-8";
      const atom = "application/atom+xml; charset=utf-8";
      const json = "application/json; charset=utf-8";
      switch (url.pathname) {
        case "/ddg/html/":
          return url.searchParams.get("q") === "qqzxqzx"
            ? answer(200, html, "duckduckgo-none.html")
            : answer(200, html, "duckduckgo.html");
        case "/ddg-slow/html/":
          // A page that takes most of a second to come: the gap must count from its end.
          return setTimeout(() => answer(200, html, "duckduckgo.html"), 700);
        case "/ddg-challenge/html/":
          return answer(202, html, "duckduckgo-challenge.html");
        case "/wikipedia/w/api.php":
          return answer(200, "application/json; charset=utf-8", "wikipedia.json");
        case "/wikipedia-error/w/api.php":
          return answer(200, "application/json; charset=utf-8", "wikipedia-error.json");
        case "/arxiv/api/query":
          return url.searchParams.get("search_query") === "all:qqzxqzx"
            ? answer(200, atom, "arxiv-empty.xml")
            : answer(200, atom, "arxiv.xml");
        case "/arxiv-error/api/query":
          return answer(400, atom, "arxiv-error.xml");
        case "/arxiv-limited/api/query":
          res.writeHead(503, { "content-type": "text/plain", "retry-after": "7" });
          return res.end("Rate exceeded.");
        case "/hn/api/v1/search":
          return answer(200, json, "hackernews.json");
        case "/stackexchange/2.3/search/advanced":
          return answer(200, json, "stackexchange.json");
        case "/stackexchange-throttled/2.3/search/advanced":
          return answer(400, json, "stackexchange-throttle.json");
        case "/github/search/repositories":
          return answer(200, json, "github.json");
        case "/github-limited/search/repositories":
          return answer(403, json, "github-limited.json", {
            "x-ratelimit-limit": "10",
            "x-ratelimit-remaining": "0",
            "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 30),
          });
        case "/hn-broken/api/v1/search":
          res.writeHead(502, { "content-type": "text/html" });
          return res.end("<html><body>502 Bad Gateway</body></html>");
        default:
          res.writeHead(404, { "content-type": "text/plain" });
          return res.end("not found");
      }
    });
    server.listen(0, "127.0.0.1", () => {
      server.unref();
      state.port = (server.address() as AddressInfo).port;
      state.url = `http://127.0.0.1:${state.port}`;
      resolve(state);
    });
  });
  return shared;
}
