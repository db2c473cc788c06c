import { isIP } from 'node:net';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { createMiddleware } from 'hono/factory';
import type { Deps, Env } from './context.js';
import { HttpError } from './errors.js';
import { openApiDocument } from './openapi.js';
import { presentObject } from './present.js';
import { adminRoutes } from './routes/admin.js';
import { requireApiKey } from './routes/auth.js';
import { keyRoutes } from './routes/keys.js';
import { sessionRoutes } from './routes/sessions.js';
import { signupRoutes } from './routes/signup.js';
import { newId } from './store.js';

const ID_SEGMENT = /\/v1\/sessions\/[^/]+(\/human-input\/[^/]+)?/;

/** `POST /v1/sessions/:id/human-input/:inputId`: counts per route, not per session. */
function routeKey(method: string, path: string): string {
  const normalized = path.replace(ID_SEGMENT, (_m, input: string | undefined) =>
    input ? '/v1/sessions/:id/human-input/:inputId' : '/v1/sessions/:id',
  );
  return `${method} ${normalized}`;
}

/** No request the contract describes comes near it; a bigger body is refused before it is read whole. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** A Host header naming an IP address or localhost (or none: HTTP/1.0). */
function isAddressHost(host: string | undefined): boolean {
  if (host === undefined) return true;
  try {
    const name = new URL(`http://${host}`).hostname.replace(/^\[|\]$/g, '');
    return isIP(name) !== 0 || name === 'localhost' || name.endsWith('.localhost');
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The contract's surface plus the emulator's own development endpoints; no listening here. */
export function createApp(deps: Deps, options: { loopbackOnly?: boolean } = {}): Hono<Env> {
  const app = new Hono<Env>();
  // DNS rebinding: a page whose name now points at 127.0.0.1 could read every session through the
  // key-less admin routes. It names its DNS name as the Host; a loopback emulator is reached by address.
  if (options.loopbackOnly) {
    app.use(async (c, next) => {
      if (!isAddressHost(c.req.header('host')))
        throw new HttpError(403, 'this emulator answers at 127.0.0.1 or localhost only');
      await next();
    });
  }

  // Faults apply to the contract's surface only, never to /healthz, /openapi.json or /_emulator.
  const faults = createMiddleware<Env>(async (c, next) => {
    const key = routeKey(c.req.method, c.req.path);
    const account = deps.store.accountsByKey.get(
      c.req.header('authorization')?.replace(/^Bearer\s+/i, '') ?? c.req.header('x-service-key') ?? '',
    );
    deps.store.countRequest(key, account?.keyIndex);
    const traceparent = c.req.header('traceparent');
    if (traceparent) deps.store.recordTraceparent(key, traceparent);
    const decision = deps.faults.decide(c.req.method, c.req.path);
    if (decision.latencyMs > 0) await sleep(decision.latencyMs);
    switch (decision.kind) {
      case 'drop':
        c.env?.incoming?.socket.destroy();
        return c.body(null, 500);
      case '429':
        throw new HttpError(429, 'rate limit exceeded', {
          'Retry-After': String(decision.retryAfterSeconds),
        });
      case '5xx':
        throw new HttpError(decision.status, 'injected fault: the service is temporarily unavailable');
      case 'none':
        await next();
    }
  });

  app.use(
    bodyLimit({
      maxSize: BODY_LIMIT_BYTES,
      onError: () => {
        throw new HttpError(413, `request body is larger than ${BODY_LIMIT_BYTES} bytes`);
      },
    }),
  );
  // The emulator has no web page: a browser request to its key-less admin routes comes from some page
  // the developer visits (CSRF), never from a client of the emulator.
  app.use('/_emulator/*', async (c, next) => {
    if (c.req.method !== 'GET' && c.req.header('origin') !== undefined)
      throw new HttpError(403, 'the admin routes take no requests from web pages');
    await next();
  });
  app.use('/v1/*', faults);
  app.use('/api/*', faults);
  app.use('/v1/*', requireApiKey(deps));
  app.route('/api/auth', signupRoutes(deps));
  app.route('/v1/sessions', sessionRoutes(deps));
  app.route('/_emulator/keys', keyRoutes(deps));
  app.route('/_emulator', adminRoutes(deps));
  app.get('/openapi.json', (c) => c.json(openApiDocument()));
  app.get('/healthz', (c) => c.json({ ok: true, sessions: deps.store.sessions.size }));

  // `extra-fields`: a machine-readable code beside the spec's `error` (the spec says codes are not shown).
  const errorBody = (message: string, status: number) =>
    presentObject({ error: message }, deps.present, { code: `http_${status}`, requestId: newId('req') });
  app.notFound((c) => c.json(errorBody(`no route for ${c.req.method} ${c.req.path}`, 404), 404));
  app.onError((error, c) => {
    if (error instanceof HttpError) {
      for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
      return c.json(errorBody(error.message, error.status), error.status);
    }
    console.error('emulator: unhandled error', error);
    return c.json(errorBody('internal error', 500), 500);
  });
  return app;
}
