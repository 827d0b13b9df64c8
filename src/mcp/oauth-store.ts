import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";

interface Stored {
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  verifier?: string;
}

/** Where one server's OAuth state is kept: `<dir>/<server>-<hash of its URL>.json`, 0600. */
export function oauthFile(dir: string, server: string, url: string): string {
  const hash = createHash("sha256").update(url).digest("hex").slice(0, 12);
  return join(dir, `${server}-${hash}.json`);
}

/** The tokens kept for a server, for the session's scrubber (a server may echo its token back). */
export function storedTokens(dir: string, server: string, url: string): string[] {
  try {
    const stored = JSON.parse(readFileSync(oauthFile(dir, server, url), "utf8")) as Stored;
    return [stored.tokens?.access_token, stored.tokens?.refresh_token].filter(
      (token): token is string => typeof token === "string",
    );
  } catch {
    return [];
  }
}

/**
 * The SDK's OAuth client, with what it learns (the registered client, tokens, the PKCE verifier)
 * kept in a 0600 file in a 0700 folder, never printed. In a session `redirect` is null: a server
 * that needs a sign-in is reported (`nex mcp login NAME`) instead of opening anything.
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  private readonly file: string;
  private readonly redirect: string | null;
  private readonly onRedirect: (url: URL) => void;

  constructor(file: string, redirect: string | null, onRedirect: (url: URL) => void) {
    this.file = file;
    this.redirect = redirect;
    this.onRedirect = onRedirect;
  }

  get redirectUrl(): string {
    // A session never completes a redirect; the address only has to be a valid one.
    return this.redirect ?? "http://127.0.0.1/nex-oauth-callback";
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "nex",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const client = this.read().client;
    // A client registered for another callback address cannot finish this sign-in.
    const uris = (client as { redirect_uris?: string[] } | undefined)?.redirect_uris;
    if (this.redirect && uris && !uris.includes(this.redirect)) return undefined;
    return client;
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.write({ ...this.read(), client });
  }

  tokens(): OAuthTokens | undefined {
    return this.read().tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.write({ ...this.read(), tokens });
  }

  redirectToAuthorization(url: URL): void {
    this.onRedirect(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.write({ ...this.read(), verifier });
  }

  codeVerifier(): string {
    const verifier = this.read().verifier;
    if (!verifier) throw new Error("no sign-in is under way (no PKCE verifier was saved)");
    return verifier;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    const stored = this.read();
    if (scope === "all") this.write({});
    else if (scope === "client") this.write({ ...stored, client: undefined });
    else if (scope === "tokens") this.write({ ...stored, tokens: undefined });
    else if (scope === "verifier") this.write({ ...stored, verifier: undefined });
  }

  private read(): Stored {
    try {
      return JSON.parse(readFileSync(this.file, "utf8")) as Stored;
    } catch {
      return {};
    }
  }

  private write(value: Stored): void {
    mkdirSync(join(this.file, ".."), { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(value), { mode: 0o600 });
    renameSync(temp, this.file);
  }
}
