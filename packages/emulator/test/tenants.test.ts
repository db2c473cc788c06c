import { describe, expect, it } from 'vitest';
import { inProcessEmulator, type Json, KEY } from './in-process.js';

/** Each signed-up account is its own tenant: its keys see its sessions, and no one else's. */
async function setup() {
  const emulator = inProcessEmulator('');
  const { call } = emulator;
  const signup = async (email: string) => {
    const res = await call('POST', '/api/auth/signup', { email, password: 'secret-enough' }, null);
    expect(res.status).toBe(200);
    return (res.body.user as Json).uid as string;
  };
  const keyFor = async (email: string, extra: Json = {}) => {
    const res = await call('POST', '/_emulator/keys', { email, ...extra }, null);
    expect(res.status).toBe(201);
    return res.body as { key: string; accountId: string; keyIndex: number };
  };
  return { ...emulator, signup, keyFor };
}

describe('signed-up accounts as tenants', () => {
  it('gives each account keys of its own; another account’s key is refused its sessions', async () => {
    const { call, signup, keyFor } = await setup();
    const teamA = await signup('a@team-a.example');
    const teamB = await signup('b@team-b.example');
    const a = await keyFor('A@team-a.example');
    const a2 = await keyFor('a@team-a.example');
    const b = await keyFor('b@team-b.example');
    expect(a.accountId).toBe(teamA);
    expect(b.accountId).toBe(teamB);
    expect(new Set([a.key, a2.key, b.key, KEY]).size).toBe(4);

    const created = await call('POST', '/v1/sessions', { goal: 'ship it' }, a.key);
    expect(created.status).toBe(201);
    const id = created.body.sessionId as string;
    // The same account, by its other key: its own session.
    expect((await call('GET', `/v1/sessions/${id}`, undefined, a2.key)).status).toBe(200);
    // Another account (signed up, or configured): not theirs to read, signal, answer or page.
    for (const other of [b.key, KEY]) {
      expect(await call('GET', `/v1/sessions/${id}`, undefined, other)).toMatchObject({
        status: 403,
        body: { error: 'not authorized to access this session' },
      });
      expect((await call('POST', `/v1/sessions/${id}/signal`, { type: 'pause' }, other)).status).toBe(403);
      expect((await call('GET', `/v1/sessions/${id}/messages`, undefined, other)).status).toBe(403);
      expect(
        (await call('POST', `/v1/sessions/${id}/human-input/hi_x`, { approved: true }, other)).status,
      ).toBe(403);
    }
    expect((await call('GET', '/v1/sessions/no-such-session', undefined, b.key)).status).toBe(404);
  });

  it('lists only a key’s own account’s sessions when the list is asked with a key', async () => {
    const { call, signup, keyFor } = await setup();
    await signup('a@team-a.example');
    await signup('b@team-b.example');
    const a = await keyFor('a@team-a.example');
    const b = await keyFor('b@team-b.example');
    const mine = (await call('POST', '/v1/sessions', { goal: 'a one' }, a.key)).body.sessionId;
    const theirs = (await call('POST', '/v1/sessions', { goal: 'b one' }, b.key)).body.sessionId;
    const configured = (await call('POST', '/v1/sessions', { goal: 'configured' })).body.sessionId;
    const ids = async (key: string | null) =>
      ((await call('GET', '/_emulator/sessions', undefined, key)).body.sessions as Json[]).map((s) => [
        s.sessionId,
        s.accountId,
      ]);
    expect(await ids(a.key)).toEqual([[mine, a.accountId]]);
    expect(await ids(b.key)).toEqual([[theirs, b.accountId]]);
    expect((await ids(KEY)).map(([id]) => id)).toEqual([configured]);
    expect((await ids(null)).length).toBe(3);
    expect((await call('GET', '/_emulator/sessions', undefined, 'emu_made_up')).status).toBe(401);
  });

  it('refuses keys for no account, revokes keys, and forgets them at reset', async () => {
    const { call, signup, keyFor } = await setup();
    expect(await call('POST', '/_emulator/keys', { email: 'nobody@x.example' }, null)).toMatchObject({
      status: 404,
      body: { error: 'no signed-up account with email nobody@x.example' },
    });
    expect((await call('POST', '/_emulator/keys', {}, null)).body.error).toMatch(/email is required/);
    await signup('a@team-a.example');
    const a = await keyFor('a@team-a.example');
    const noIntegration = await keyFor('a@team-a.example', { integration: false });
    expect(await call('POST', '/v1/sessions', { goal: 'g' }, noIntegration.key)).toMatchObject({
      status: 404,
    });
    expect((await call('POST', '/_emulator/keys/revoke', { key: a.key }, null)).body).toEqual({
      revoked: true,
    });
    expect((await call('POST', '/v1/sessions', { goal: 'g' }, a.key)).status).toBe(401);
    expect((await call('POST', '/_emulator/keys/revoke', { key: KEY }, null)).status).toBe(400);
    await call('POST', '/_emulator/reset', {}, null);
    expect((await call('POST', '/v1/sessions', { goal: 'g' }, noIntegration.key)).status).toBe(401);
    expect((await call('POST', '/v1/sessions', { goal: 'g' })).status).toBe(201);
  });

  it('refuses a key request from a web page', async () => {
    const { app } = await setup();
    const res = await app.request('/_emulator/keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
      body: JSON.stringify({ email: 'a@team-a.example' }),
    });
    expect(res.status).toBe(403);
  });
});
