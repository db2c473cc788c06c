import { createHash, randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import { jsonBody } from '../body.js';
import type { Deps, Env } from '../context.js';
import { badRequest } from '../errors.js';
import { presentObject } from '../present.js';
import { newId } from '../store.js';
import { parseOr400, signupSchema } from '../validation.js';

export function signupRoutes(deps: Deps) {
  const app = new Hono<Env>();
  app.post('/signup', async (c) => {
    const body = parseOr400(signupSchema, await jsonBody(c));
    const email = body.email.toLowerCase();
    if (deps.store.users.has(email)) throw badRequest('an account with this email already exists');
    const uid = newId('uid');
    deps.store.users.set(email, {
      uid,
      email,
      displayName: body.displayName ?? null,
      passwordHash: createHash('sha256').update(body.password).digest('hex'),
    });
    const user = { uid, email, displayName: body.displayName ?? null, photoURL: null, emailVerified: false };
    return c.json(
      presentObject(
        {
          user: presentObject(user, deps.present, { providerId: 'password' }),
          // Opaque, like an identity provider's tokens; the /v1 surface doesn't take them.
          idToken: randomBytes(32).toString('base64url'),
          refreshToken: randomBytes(32).toString('base64url'),
          expiresIn: '3600',
        },
        deps.present,
        { kind: 'identitytoolkit#SignupNewUserResponse' },
      ),
    );
  });
  return app;
}
