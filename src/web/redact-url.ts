// Keys in URLs: a query (or fragment) parameter named like a key, token, secret or password, and a
// URL's user and password (a token often rides as the user: https://ghp_…@github.com), are replaced
// before a URL is shown, logged or journaled. The request itself still carries them.

const SECRET_PARAM =
  /(^|[_-])(api[_-]?key|key|token|secret|password|passwd|pwd|passphrase|auth|jwt|bearer|signature|sig|session|credential|private[_-]?key)s?$/i;

/** The URL with secret-looking parameter values and any user or password replaced. */
export function redactUrl(raw: string): string {
  const url = URL.parse(raw);
  if (!url || !/^https?:$/.test(url.protocol)) return raw;
  let changed = false;
  if (url.username || url.password) {
    if (url.username) url.username = "redacted";
    if (url.password) url.password = "redacted";
    changed = true;
  }
  const params = [...url.searchParams.entries()];
  if (params.some(([name]) => SECRET_PARAM.test(name))) {
    url.search = "";
    for (const [name, value] of params)
      url.searchParams.append(name, SECRET_PARAM.test(name) ? "[redacted]" : value);
    changed = true;
  }
  // An OAuth answer puts its token in the fragment: #access_token=…&token_type=bearer.
  const fragment = url.hash.slice(1);
  if (fragment.includes("=")) {
    const pairs = new URLSearchParams(fragment);
    if ([...pairs.keys()].some((name) => SECRET_PARAM.test(name))) {
      for (const name of [...pairs.keys()])
        if (SECRET_PARAM.test(name)) pairs.set(name, "[redacted]");
      url.hash = pairs.toString();
      changed = true;
    }
  }
  return changed ? url.href.replace(/%5Bredacted%5D/gi, "[redacted]") : raw;
}

/** Every http(s) URL in a text, redacted. */
export function redactUrlsIn(text: string): string {
  if (!text.includes("://")) return text;
  return text.replace(/https?:\/\/[^\s"'<>`)\]]+/gi, (match) => redactUrl(match));
}
