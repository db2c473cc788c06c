import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SlackIdentityAuth } from '../../../src/services/mcp/index.js';

// Slack identity auth's checks on one request, before anything acts on it: the signature over the raw
// body, the timestamp's window, and the person named in params._meta.slack.
const SECRET = 'signing-secret-of-the-test';
const NOW = 1_800_000_000;
const auth = new SlackIdentityAuth({ signingSecret: SECRET, now: () => NOW * 1000 });

const signed = (body: string, timestamp = NOW, secret = SECRET) => ({
  'x-slack-request-timestamp': String(timestamp),
  'x-slack-signature': `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`,
});
const call = (slack?: Record<string, string>, method = 'tools/call') =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method,
    params: { name: 'list_sessions', arguments: {}, ...(slack ? { _meta: { slack } } : {}) },
  });
const ALICE = { user_id: 'U0ALICE', team_id: 'T0SANDBOX' };

describe('Slack identity auth', () => {
  it('a tool call signed with the secret names its person, with the organisation on Enterprise Grid', () => {
    const body = call({ ...ALICE, enterprise_id: 'E0GRID' });
    expect(auth.check(signed(body), body)).toMatchObject({
      ok: true,
      person: { userId: 'U0ALICE', teamId: 'T0SANDBOX', enterpriseId: 'E0GRID' },
    });
  });

  it('another secret, a changed body, or a timestamp outside five minutes is refused, naming the header', () => {
    const body = call(ALICE);
    expect(auth.check(signed(body, NOW, 'another'), body)).toMatchObject({
      ok: false,
      status: 401,
      message: expect.stringMatching(/^X-Slack-Signature: /),
    });
    const changed = call({ ...ALICE, user_id: 'U0BOB' });
    expect(auth.check(signed(body), changed)).toMatchObject({ ok: false, status: 401 });
    for (const timestamp of [NOW - 301, NOW + 301])
      expect(auth.check(signed(body, timestamp), body)).toMatchObject({
        ok: false,
        status: 401,
        message: expect.stringMatching(/^X-Slack-Request-Timestamp: more than 300 s/),
      });
    expect(auth.check(signed(body, NOW - 299), body).ok).toBe(true);
    expect(auth.check({ 'x-slack-signature': 'v0=00' }, body)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^X-Slack-Request-Timestamp: required/),
    });
  });

  it('a tool call naming no one, or ids not of Slack’s shape, has no one to act as; listing tools needs no one', () => {
    for (const body of [call(), call({ user_id: 'alice', team_id: 'T0SANDBOX' })])
      expect(auth.check(signed(body), body)).toMatchObject({
        ok: false,
        status: 401,
        message: expect.stringMatching(/^params\._meta\.slack: /),
      });
    const listing = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    const listed = auth.check(signed(listing), listing);
    expect(listed.ok).toBe(true);
    expect(listed).not.toHaveProperty('person');
  });

  it('a batch whose messages name two people is refused', () => {
    const batch = `[${call(ALICE)},${call({ user_id: 'U0BOB', team_id: 'T0SANDBOX' })}]`;
    expect(auth.check(signed(batch), batch)).toMatchObject({
      ok: false,
      status: 400,
      message: expect.stringMatching(/different people/),
    });
  });
});

describe('Slack identity auth against replays', () => {
  it('the same signed request sent again inside the window is refused 401, saying it is a replay', () => {
    const fresh = new SlackIdentityAuth({ signingSecret: SECRET, now: () => NOW * 1000 });
    const body = call(ALICE);
    expect(fresh.check(signed(body), body)).toMatchObject({ ok: true });
    expect(fresh.check(signed(body), body)).toEqual({
      ok: false,
      status: 401,
      message: expect.stringMatching(/^X-Slack-Signature: .*already taken \(a replay\)/),
    });
    // Signed again (a new timestamp) it is a new request.
    expect(fresh.check(signed(body, NOW - 1), body)).toMatchObject({ ok: true });
  });
});
