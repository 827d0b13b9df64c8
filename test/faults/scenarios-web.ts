// The web tools through the real `nex run`: loopback pages (allowed by the config, or refused without
// it), a redirect to a private address, search backends in their documented shapes (answers, errors,
// rate limits), offline, research's brief, and keys in URLs kept out of every output.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Sandbox } from "../support/cli.ts";
import { keylessPages } from "../support/keyless-pages.ts";
import type { LoggedRequest, Script } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import {
  ADMIN_SECRET,
  ARTICLE_FACT,
  NAV_TEXT,
  type WebPages,
  webPages,
} from "../support/web-pages.ts";
import {
  type Check,
  exitCode,
  type FaultScenario,
  holds,
  neverPrinted,
  neverTold,
  stderrSays,
  told,
} from "./scenario.ts";

const wire = "openai";
const URL_KEY = "URLKEY-7c1f9e2ab044";

// The keyless backends (DuckDuckGo, Wikipedia) are public sites: a test never asks them unless it
// points them at the loopback pages itself.
function writeConfig(box: Sandbox, config: { web?: Record<string, unknown> }): void {
  const dir = join(box.env.XDG_CONFIG_HOME ?? "", "nex");
  mkdirSync(dir, { recursive: true });
  const web = config.web ? { keyless: false, ...config.web } : { keyless: false };
  writeFileSync(join(dir, "config.json"), JSON.stringify({ ...config, web }));
}

/** The pages server allowed by the config (loopback test pages need it), plus any `web` settings. */
const allowPages =
  (web: Record<string, unknown> = {}) =>
  async (box: Sandbox): Promise<void> => {
    const pages = await webPages();
    writeConfig(box, { web: { allowPrivateHosts: [`127.0.0.1:${pages.port}`], ...web } });
  };

function systemText(request: LoggedRequest): string {
  const body = request.body as { messages?: { role: string; content: unknown }[] } | null;
  return String(body?.messages?.find((m) => m.role === "system")?.content ?? "");
}

function isSummaryRequest(request: LoggedRequest): boolean {
  const body = request.body as { messages?: { role: string; content: unknown }[] } | null;
  const system = body?.messages?.find((m) => m.role === "system")?.content;
  return typeof system === "string" && system.startsWith("You summarise one web page");
}

/**
 * The model's turns, built once the pages' address is known. A summary request (research, `what`)
 * is answered apart, by quoting the first sentence of the page it carries that names frob or a
 * migration: what the note says can only have come from the page.
 */
function turns(build: (pages: WebPages) => Script[]) {
  let turn = 0;
  return async (request: LoggedRequest): Promise<Script> => {
    const pages = await webPages();
    if (isSummaryRequest(request)) return openaiText(summaryOf(request));
    return build(pages)[turn++] ?? openaiText("done");
  };
}

function summaryOf(request: LoggedRequest): string {
  const body = request.body as { messages?: { role: string; content: string }[] } | null;
  const prompt = body?.messages?.find((m) => m.role === "user")?.content ?? "";
  const page = prompt.split("\n\n").slice(2, -1).join(" ");
  const sentence = page
    .split(/(?<=\.)\s+/)
    .find((line) => /frob|migrat/i.test(line) && !/^#|^Title:/.test(line));
  return sentence ? `The page says: ${sentence.trim()}` : "The page does not answer the question.";
}

const call = (name: string, args: unknown): Script => openaiToolCall({ name, args });

/** Every journal of the run, as text. */
function journals(o: { box: Sandbox }): string {
  const dir = join(o.box.dataDir, "sessions");
  const found: string[] = [];
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".jsonl")) found.push(readFileSync(full, "utf8"));
    }
  };
  try {
    walk(dir);
  } catch {
    return "";
  }
  return found.join("\n");
}

const neverJournaled =
  (text: string): Check =>
  (o) =>
    journals(o).includes(text) ? `the journal holds "${text}"` : null;

const journaled =
  (pattern: RegExp): Check =>
  (o) =>
    pattern.test(journals(o)) ? null : `no journal matches ${pattern}`;

const searchBackends = (pages: WebPages) => [
  { type: "brave", url: `${pages.url}/brave` },
  { type: "tavily", url: `${pages.url}/tavily` },
  { type: "searxng", url: `${pages.url}/searxng` },
  { type: "exa", url: `${pages.url}/exa` },
];

const KEYS = {
  BRAVE_API_KEY: "brave-test-key",
  TAVILY_API_KEY: "tvly-test-key",
  EXA_API_KEY: "exa-test-key",
};

export const webScenarios: FaultScenario[] = [
  {
    name: "web_fetch of an article page with navigation",
    wire,
    expect:
      "the model gets the title, the size and the article as markdown, without the navigation",
    setup: allowPages(),
    handler: turns((pages) => [call("web_fetch", { url: `${pages.url}/article` })]),
    checks: [
      told(/^Title: Widget 3\.2 release notes$/m),
      told(/bytes fetched, [\d,]+ bytes of text/),
      told(new RegExp(ARTICLE_FACT.replace(/[()]/g, "\\$&"))),
      neverTold(new RegExp(NAV_TEXT)),
      stderrSays(/web_fetch url="http:\/\/127\.0\.0\.1:\d+\/article"/),
      exitCode(0),
    ],
  },
  {
    name: "web_fetch of a PDF and of a redirect chain",
    wire,
    expect: "the PDF's text; the chain's final page with the redirects named",
    setup: allowPages(),
    handler: turns((pages) => [
      call("web_fetch", { url: `${pages.url}/guide.pdf` }),
      call("web_fetch", { url: `${pages.url}/r1` }),
    ]),
    checks: [
      told(/Run widget migrate to convert widget\.ini to widget\.toml/),
      told(/Redirected from: .*\/r1 → .*\/r2 → .*\/r3/, 2),
      exitCode(0),
    ],
  },
  {
    name: "web_fetch of a loopback page with no allowPrivateHosts (--yes)",
    wire,
    expect:
      "refused before any request reaches it, naming the loopback address and the allowPrivateHosts setting",
    handler: turns((pages) => [
      call("web_fetch", { url: `http://localhost:${pages.port}/secret` }),
    ]),
    checks: [
      told(/localhost:\d+ resolves to (127\.0\.0\.1|::1), which is a loopback address/),
      told(/allowPrivateHosts/),
      neverTold(new RegExp(ADMIN_SECRET)),
      // A refused action is reported by the exit status, as for any other refusal.
      stderrSays(/1 action was refused/),
      exitCode(4),
    ],
  },
  {
    name: "web_fetch of an allowed page that redirects to the cloud metadata address",
    wire,
    expect: "the redirect is checked and refused; nothing from 169.254.169.254 is read",
    setup: allowPages(),
    handler: turns((pages) => [call("web_fetch", { url: `${pages.url}/to-metadata` })]),
    checks: [told(/169\.254\.169\.254 is a cloud metadata address/), exitCode(0)],
  },
  {
    name: "web_fetch of a slow page and of a gzip bomb",
    wire,
    expect: "the slow page stops at the configured timeout; the bomb stops at the size cap",
    // The timeout also bounds the bomb's fetch from this process's page server: long enough that a
    // loaded machine serves it in time.
    setup: allowPages({ timeoutSeconds: 5, maxPageBytes: 1024 * 1024 }),
    handler: turns((pages) => [
      call("web_fetch", { url: `${pages.url}/slow` }),
      call("web_fetch", { url: `${pages.url}/bomb` }),
    ]),
    checks: [
      told(/did not answer in full within 5 s/),
      told(/larger than 1 MiB \(after gzip decompression\)/, 2),
      exitCode(0),
    ],
  },
  {
    name: "web_fetch of a page larger than the result's share of the window",
    wire,
    expect: "the whole page is stored and paged; the model gets the title, the size and the start",
    setup: allowPages({ maxPageBytes: 1024 * 1024 }),
    handler: turns((pages) => [call("web_fetch", { url: `${pages.url}/big.txt` })]),
    checks: [
      told(
        /The full result \([\d,]+ bytes, [\d,]+ lines\) is more than fits the context; stored whole as "@results\//,
      ),
      told(/^Title: \(none\)$/m),
      exitCode(0),
    ],
  },
  {
    name: "web_fetch with `what` of a page larger than the result's share of the window",
    wire,
    expect: "the page is stored whole; the model gets its summary for the question and where it is",
    setup: allowPages(),
    handler: turns((pages) => [
      call("web_fetch", { url: `${pages.url}/big.txt`, what: "how many lines are there" }),
    ]),
    checks: [
      told(
        /The whole page \(155,007 bytes\) is stored as "@results\/[^"]+": read it with read_file/,
        -1,
      ),
      told(/Summary for "how many lines are there":\nThe page does not answer the question\./, -1),
      holds("one summary request", (o) => o.requests.filter(isSummaryRequest).length === 1),
      exitCode(0),
    ],
  },
  {
    name: "a key in a fetched URL's query",
    wire,
    expect: "the fetch runs; the key is in no output, no event and no journal",
    setup: allowPages(),
    permission: ["--yes", "--json"],
    handler: turns((pages) => [
      call("web_fetch", { url: `${pages.url}/notes.txt?api_key=${URL_KEY}&q=1` }),
    ]),
    checks: [
      told(/Plain notes: widget 3\.2/),
      told(/api_key=\[redacted\]/),
      neverPrinted(URL_KEY),
      neverJournaled(URL_KEY),
      journaled(/api_key=\[redacted\]/),
      exitCode(0),
    ],
  },
  {
    name: "web_search across four backends (SearXNG, Brave, Tavily, Exa)",
    wire,
    expect: "results merged by URL (one entry per page), with title, URL and snippet",
    env: KEYS,
    setup: async (box) => {
      const pages = await webPages();
      writeConfig(box, { web: { search: searchBackends(pages) } });
    },
    handler: turns(() => [call("web_search", { query: "widget 3.2 frob" })]),
    checks: [
      told(/^3 results for "widget 3\.2 frob" from brave, tavily, searxng at .*, exa:/m),
      told(
        /1\. Widget 3\.2 release notes\n {3}http:\/\/127\.0\.0\.1:\d+\/article\n {3}frobnicate\(\) replaces frob\(\)/,
      ),
      neverTold(/<strong>/),
      neverPrinted("tvly-test-key"),
      exitCode(0),
    ],
  },
  {
    name: "web_search where one backend is rate-limited and one refuses the key",
    wire,
    expect: "the others' results, and the failures named with the API's own words",
    env: { ...KEYS, TAVILY_API_KEY: "tvly-wrong" },
    setup: async (box) => {
      const pages = await webPages();
      writeConfig(box, {
        web: {
          search: [
            { type: "brave", url: `${pages.url}/brave` },
            { type: "searxng", url: `${pages.url}/searxng-rate_limited` },
            { type: "tavily", url: `${pages.url}/tavily` },
            { type: "exa", url: `${pages.url}/exa`, apiKeyEnv: "EXA_OTHER_KEY" },
          ],
        },
      });
    },
    handler: turns(() => [call("web_search", { query: "widget" })]),
    checks: [
      told(/from brave:/),
      told(/searxng at .*: rate or usage limit \(HTTP 429: Too Many Requests\)/),
      told(/tavily: the key was refused \(HTTP 401: Unauthorized: missing or invalid API key\.\)/),
      told(/exa: no key: the environment variable EXA_OTHER_KEY is not set/),
      exitCode(0),
    ],
  },
  {
    name: "web_search with no backend configured",
    wire,
    expect:
      "an error that says no backend is configured and how to configure one, not an empty list",
    setup: (box) => writeConfig(box, { web: { keyless: false } }),
    handler: turns(() => [call("web_search", { query: "widget" })]),
    checks: [
      told(/No search backend is configured\. Configure a backend in the config file/),
      told(/BRAVE_API_KEY/),
      exitCode(0),
    ],
  },
  {
    name: "web_search offline (every backend unreachable)",
    wire,
    expect: "an error naming each backend tried and why it failed, saying nex seems offline",
    env: KEYS,
    setup: (box) =>
      writeConfig(box, {
        web: {
          search: [
            { type: "searxng", url: "http://127.0.0.1:9/" },
            { type: "brave", url: "http://no-such-host.invalid" },
          ],
        },
      }),
    handler: turns(() => [call("web_search", { query: "widget" })]),
    checks: [
      told(
        /every backend failed \(searxng at http:\/\/127\.0\.0\.1:9\/: 127\.0\.0\.1:9 could not be reached/,
      ),
      told(/brave: no-such-host\.invalid could not be resolved/),
      told(/nex seems to be offline/),
      exitCode(0),
    ],
  },
  {
    name: "research a question through search, pages and summaries",
    wire,
    expect:
      "a brief with numbered sources from the test pages; each page summarised by the session's model",
    env: KEYS,
    permission: ["--yes", "--json"],
    setup: async (box) => {
      const pages = await webPages();
      writeConfig(box, {
        web: {
          allowPrivateHosts: [`127.0.0.1:${pages.port}`],
          search: [{ type: "brave", url: `${pages.url}/brave` }],
        },
      });
    },
    handler: turns(() => [call("research", { question: "What replaces frob() in Widget 3.2?" })]),
    checks: [
      told(/^Research brief: What replaces frob\(\) in Widget 3\.2\?/m, -1),
      told(/\[1\] The page says: In short: frobnicate\(\) replaces frob\(\) in Widget 3\.2\./, -1),
      told(
        /\[3\] The page says: [^[]*Run widget migrate to convert widget\.ini to widget\.toml\./,
        -1,
      ),
      told(
        /Sources:\n\[1\] Widget 3\.2 release notes — http:\/\/127\.0\.0\.1:\d+\/article\n\[2\] Widget changelog — .*\/changelog#top\n\[3\] Widget migration guide — .*\/guide\.pdf/,
        -1,
      ),
      holds("three summary requests", (o) => o.requests.filter(isSummaryRequest).length === 3),
      holds("progress events in --json", (o) =>
        /"type":"tool_progress".*"message":"reading 1 of 3: http/.test(o.stdout),
      ),
      exitCode(0),
    ],
  },
  {
    name: "research with every search backend unreachable",
    wire,
    expect: "no brief and no summary request: the error names the backend and how to configure one",
    setup: (box) =>
      writeConfig(box, { web: { search: [{ type: "searxng", url: "http://127.0.0.1:9" }] } }),
    handler: turns(() => [call("research", { question: "widget" })]),
    checks: [
      told(/Web search failed: every backend failed/),
      holds("no summary request", (o) => !o.requests.some(isSummaryRequest)),
      exitCode(0),
    ],
  },
  {
    name: "web_fetch in ask mode with no one to ask (headless, no --yes)",
    wire,
    expect: "not fetched: it needs approval, shown with its URL",
    setup: allowPages(),
    permission: [],
    handler: turns((pages) => [call("web_fetch", { url: `${pages.url}/article` })]),
    checks: [
      stderrSays(/web_fetch http:\/\/127\.0\.0\.1:\d+\/article needs approval/),
      exitCode(4),
      neverTold(new RegExp(ARTICLE_FACT.replace(/[()]/g, "\\$&"))),
    ],
  },
  {
    name: "web_search with no key: DuckDuckGo's HTML page and Wikipedia's API (recorded, on loopback)",
    wire,
    expect: "both asked, results merged by URL, DuckDuckGo's ad left out and its links unwrapped",
    setup: async (box) => {
      const keyless = await keylessPages();
      writeConfig(box, {
        web: {
          search: [
            { type: "duckduckgo", url: `${keyless.url}/ddg` },
            { type: "wikipedia", url: `${keyless.url}/wikipedia` },
          ],
        },
      });
    },
    handler: turns(() => [call("web_search", { query: "rust borrow checker" })]),
    checks: [
      told(/^6 results for "rust borrow checker" from duckduckgo, wikipedia:/m),
      told(/https:\/\/doc\.rust-lang\.org\/book\/ch04-02-references-and-borrowing\.html/),
      told(/\/wikipedia\/wiki\/Borrow_checker/),
      neverTold(/Sponsored|y\.js|duckduckgo\.com\/l\//),
      exitCode(0),
    ],
  },
  {
    name: "arxiv_search against arXiv's recorded Atom feed",
    wire,
    expect: "papers with title, authors, date, category and links; the query in arXiv's syntax",
    setup: async (box) => {
      const keyless = await keylessPages();
      writeConfig(box, { web: { arxivUrl: `${keyless.url}/arxiv` } });
    },
    handler: turns(() => [call("arxiv_search", { query: "mistral 7b" })]),
    checks: [
      told(/2 of 212844 arXiv papers for "mistral 7b":/),
      told(
        /2\. Mistral 7B\n {3}Albert Q\. Jiang, Alexandre Sablayrolles, Arthur Mensch et al\. \(6 authors\)/,
      ),
      exitCode(0),
    ],
  },
  {
    name: "deep_research through sub-questions, pages and one synthesis",
    wire,
    expect:
      "the session's model plans two sub-questions, each is researched, and writes one answer citing the pages",
    env: KEYS,
    setup: async (box) => {
      const pages = await webPages();
      writeConfig(box, {
        web: {
          allowPrivateHosts: [`127.0.0.1:${pages.port}`],
          search: [{ type: "brave", url: `${pages.url}/brave` }],
        },
      });
    },
    handler: (() => {
      const main = turns(() => [
        call("deep_research", { question: "What changed in Widget 3.2?" }),
      ]);
      return async (request: LoggedRequest): Promise<Script> => {
        const system = systemText(request);
        if (system.startsWith("You plan web research"))
          return openaiText("What replaces frob()?\nWhere does the configuration move?");
        if (system.startsWith("You write a research answer"))
          return openaiText(
            /\[1\] \(What replaces frob\(\)\?\) The page says/.test(JSON.stringify(request.body))
              ? "frobnicate() replaces frob() [1]."
              : "the notes were not passed",
          );
        return main(request);
      };
    })(),
    checks: [
      told(
        /^Deep research: What changed in Widget 3\.2\?\n\nfrobnicate\(\) replaces frob\(\) \[1\]\./m,
        -1,
      ),
      told(/Sources:\n\[1\] Widget 3\.2 release notes — http:\/\/127\.0\.0\.1:\d+\/article/, -1),
      told(
        /Sub-questions researched:\n- What replaces frob\(\)\?\n- Where does the configuration move\?/,
        -1,
      ),
      exitCode(0),
    ],
  },
];
