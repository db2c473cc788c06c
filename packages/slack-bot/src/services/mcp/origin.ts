/**
 * DNS rebinding: a web page the person opened may send requests to the bot from their browser, which
 * then carry the page's `Origin`. Hosts that aren't browsers (Claude Desktop, Claude Code, Cursor, n8n)
 * send none. So a request without `Origin` passes, and one with an `Origin` passes only when that origin
 * (scheme, host and port) is one the operator listed in MCP_ALLOWED_ORIGINS.
 */
export function originAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (origin === undefined) return true;
  const normal = normalOrigin(origin);
  return normal !== undefined && allowed.some((entry) => normalOrigin(entry) === normal);
}

/** `scheme://host[:port]` as a browser sends it, lower case, default ports left out; undefined if not one. */
export function normalOrigin(raw: string): string | undefined {
  // "null" (a sandboxed frame, a file) and anything that isn't a URL with a host never match.
  try {
    const url = new URL(raw.trim());
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.host === '') return undefined;
    return url.origin.toLowerCase();
  } catch {
    return undefined;
  }
}
