import { describe, expect, it } from 'vitest';
import { inProcessEmulator, KEY } from './in-process.js';

describe('POST /_emulator/keys/revoke', () => {
  it('makes a key answer 401 from then on, leaving the others as they were', async () => {
    const { call } = inProcessEmulator('', { apiKeys: [KEY, 'k_two'] });
    expect((await call('GET', '/v1/sessions/nope')).status).toBe(404);
    const revoked = await call('POST', '/_emulator/keys/revoke', { key: KEY }, null);
    expect(revoked).toMatchObject({ status: 200, body: { revoked: true } });
    expect((await call('GET', '/v1/sessions/nope')).status).toBe(401);
    expect((await call('GET', '/v1/sessions/nope', undefined, 'k_two')).status).toBe(404);
  });

  it('names the problem: a key it does not know (404), no key (400)', async () => {
    const { call } = inProcessEmulator('');
    expect(await call('POST', '/_emulator/keys/revoke', { key: 'k_unknown' }, null)).toMatchObject({
      status: 404,
      body: { error: 'no such API key' },
    });
    const missing = await call('POST', '/_emulator/keys/revoke', {}, null);
    expect(missing.status).toBe(400);
    expect(String(missing.body.error)).toMatch(/key/);
  });
});
