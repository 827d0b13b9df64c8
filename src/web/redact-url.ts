// Keys in URLs: a query parameter named like a key, token, secret or password, and a URL's password,
// are replaced before a URL is shown, logged or journaled. The request itself still carries them.

const SECRET_PARAM =
  /(^|[_-])(api[_-]?key|key|token|secret|password|passwd|pwd|auth|access[_-]?token|signature|sig|session|credential)s?$/i;

/** The URL with secret-looking query values and any password replaced by `[redacted]`. */
export function redactUrl(raw: string): string {
  const url = URL.parse(raw);
  if (!url || !/^https?:$/.test(url.protocol)) return raw;
  let changed = false;
  if (url.password) {
    url.password = "redacted";
    changed = true;
  }
  const params = [...url.searchParams.entries()];
  if (params.some(([name]) => SECRET_PARAM.test(name))) {
    url.search = "";
    for (const [name, value] of params)
      url.searchParams.append(name, SECRET_PARAM.test(name) ? "[redacted]" : value);
    changed = true;
  }
  return changed ? url.href.replace(/%5Bredacted%5D/g, "[redacted]") : raw;
}

/** Every http(s) URL in a text, redacted. */
export function redactUrlsIn(text: string): string {
  if (!text.includes("://")) return text;
  return text.replace(/https?:\/\/[^\s"'<>`)\]]+/gi, (match) => redactUrl(match));
}
