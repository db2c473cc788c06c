import { isIP } from 'node:net';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

/** The largest request body the sandbox reads: Slack's own requests are far smaller. */
export const BODY_LIMIT_BYTES = 1024 * 1024;
/** File uploads (`/upload/:id`) may be larger: the bot sends long agent text as a file. */
export const UPLOAD_LIMIT_BYTES = 16 * 1024 * 1024;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

const tooLarge = (limit: number) => (c: Context) =>
  c.json({ ok: false, error: `the request body is larger than ${limit} bytes` }, 413);

/** Refuses bodies over `limit` before they are read whole (Content-Length at once, chunked as it passes). */
export const limitBody = (limit: number): MiddlewareHandler =>
  bodyLimit({ maxSize: limit, onError: tooLarge(limit) });

/** Uploads get the larger limit; every other route the 1 MB one. */
export function limitBodies(): MiddlewareHandler {
  const small = limitBody(BODY_LIMIT_BYTES);
  const large = limitBody(UPLOAD_LIMIT_BYTES);
  return (c, next) => (c.req.path.startsWith('/upload/') ? large : small)(c, next);
}

/**
 * Whether a browser's `Origin` is the sandbox's own page. Its own URL and the loopback names at its port
 * are; so is the Host the request names when that is an IP address or localhost (someone who bound the
 * sandbox beyond loopback and opened it by address). A DNS name there is not: that is how a rebinding
 * page would look.
 */
export function isOwnOrigin(origin: string, own: string, host: string | undefined): boolean {
  let url: URL;
  let ownUrl: URL;
  try {
    url = new URL(origin);
    ownUrl = new URL(own);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (url.origin === ownUrl.origin) return true;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  if (port === ownUrl.port && LOOPBACK_NAMES.includes(url.hostname)) return true;
  if (host === undefined || url.host !== host) return false;
  const name = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(name) !== 0 || name === 'localhost';
}

/** A Host header naming an IP address or localhost (or none: HTTP/1.0). */
export function isAddressHost(host: string | undefined): boolean {
  if (host === undefined) return true;
  let name: string;
  try {
    name = new URL(`http://${host}`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  return isIP(name) !== 0 || name === 'localhost' || name.endsWith('.localhost');
}

/**
 * DNS rebinding: a page whose own name the attacker points at 127.0.0.1 is same-origin with the sandbox
 * in the browser's eyes and could read its state. Such a request names that DNS name as its Host; a
 * sandbox on the loopback is reached by address or localhost only, so it answers nothing else.
 */
export function refuseRebinding(loopbackOnly: boolean): MiddlewareHandler {
  return async (c, next) => {
    if (!loopbackOnly || isAddressHost(c.req.header('host'))) return next();
    return c.json({ ok: false, error: 'this sandbox answers at 127.0.0.1 or localhost only' }, 403);
  };
}

/**
 * Keeps web pages a developer visits from acting as the sandbox's people (CSRF): a state-changing request
 * that a browser marks as coming from another origin is refused, and `/sandbox/*` actions take JSON only
 * (a page can send text/plain or a form cross-origin without asking; JSON it cannot). Clients that are no
 * browser (the bot, tests, curl) send no Origin and pass.
 */
export function refuseForeignPages(ownUrl: () => string): MiddlewareHandler {
  return async (c, next) => {
    if (SAFE_METHODS.has(c.req.method)) return next();
    const origin = c.req.header('origin');
    if (origin !== undefined && !isOwnOrigin(origin, ownUrl(), c.req.header('host'))) {
      return c.json(
        { ok: false, error: `requests from ${origin} are refused: only the sandbox's page` },
        403,
      );
    }
    const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (c.req.path.startsWith('/sandbox/') && c.req.method !== 'DELETE' && type !== 'application/json') {
      return c.json(
        { ok: false, error: `content-type must be application/json, got "${type || 'none'}"` },
        415,
      );
    }
    return next();
  };
}
