import { Hono } from 'hono';
import { z } from 'zod';
import { jsonBody } from '../body.js';
import type { Deps, Env } from '../context.js';
import { badRequest, HttpError } from '../errors.js';
import { parseOr400 } from '../validation.js';

const mintSchema = z.object({
  email: z.string({ error: 'email is required: the signed-up account to make a key for' }),
  integration: z.boolean({ error: 'integration must be a boolean' }).optional(),
});
const revokeSchema = z.object({ key: z.string({ error: 'key is required' }) });

/**
 * The contract makes keys "in the app", out of band; this is the emulator's stand-in for that app.
 * A signed-up account (POST /api/auth/signup) gets keys here, and is its own tenant: its sessions are
 * refused to every other account's keys (403, as the contract says), whichever of its keys made them.
 */
export function keyRoutes(deps: Deps) {
  const app = new Hono<Env>();

  app.post('/', async (c) => {
    const body = parseOr400(mintSchema, await jsonBody(c));
    const user = deps.store.users.get(body.email.toLowerCase());
    if (!user) throw new HttpError(404, `no signed-up account with email ${body.email}`);
    const { key, keyIndex } = deps.store.mintKey(user.uid, body.integration ?? true);
    return c.json({ key, accountId: user.uid, keyIndex }, 201);
  });

  app.post('/revoke', async (c) => {
    const { key } = parseOr400(revokeSchema, await jsonBody(c));
    if (!deps.store.revokeKey(key)) throw badRequest('key: not a key made here (configured keys stay)');
    return c.json({ revoked: true });
  });

  return app;
}
