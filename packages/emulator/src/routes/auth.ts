import { createMiddleware } from 'hono/factory';
import type { Deps, Env } from '../context.js';
import { HttpError } from '../errors.js';

/** Every /v1 request carries a key as `Authorization: Bearer` or `X-Service-Key`; either is accepted. */
export function requireApiKey(deps: Deps) {
  return createMiddleware<Env>(async (c, next) => {
    const authorization = c.req.header('authorization');
    const bearer = authorization?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
    const key = bearer ?? c.req.header('x-service-key')?.trim();
    if (!key) {
      throw new HttpError(401, 'missing API key: send Authorization: Bearer <key> or X-Service-Key: <key>');
    }
    const account = deps.store.accountsByKey.get(key);
    if (!account) throw new HttpError(401, 'invalid API key');
    c.set('account', account);
    await next();
  });
}
