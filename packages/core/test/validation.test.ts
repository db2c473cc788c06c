import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentSessionsClient, ValidationError } from '../src/index.js';

// A dispatcher that refuses every connection: any request that got past validation would fail the test.
let agent: MockAgent;
let client: AgentSessionsClient;

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  client = new AgentSessionsClient({
    baseUrl: 'http://service.test',
    apiKey: 'k',
    dispatcher: agent,
    maxRetries: 0,
  });
});

afterEach(async () => {
  agent.assertNoPendingInterceptors();
  await agent.close();
});

async function refused(call: () => Promise<unknown>): Promise<ValidationError> {
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ValidationError);
  return error as ValidationError;
}

describe('requests are validated before sending', () => {
  it.each([
    [
      'redirect without a message',
      () => client.sessions.signal('s1', { type: 'redirect' } as never),
      'message',
      /required/,
    ],
    ['no goal', () => client.sessions.create({} as never), 'goal', /required/],
    ['a goal that is not a string', () => client.sessions.create({ goal: 42 } as never), 'goal', /string/],
    [
      'unknown signal type',
      () => client.sessions.signal('s1', { type: 'stop' } as never),
      'type',
      /pause, resume/,
    ],
    [
      'a password under 6 characters',
      () => client.auth.signup({ email: 'a@b.co', password: '12345' }),
      'password',
      /at least 6/,
    ],
    [
      'an invalid email',
      () => client.auth.signup({ email: 'not-an-email', password: '123456' }),
      'email',
      /valid email/,
    ],
    ['limit 0', () => client.sessions.messages('s1', { limit: 0 }), 'limit', /between 1 and 200/],
    ['limit 201', () => client.sessions.messages('s1', { limit: 201 }), 'limit', /between 1 and 200/],
    ['limit 2.5', () => client.sessions.messages('s1', { limit: 2.5 }), 'limit', /whole number/],
    ['limit as text', () => client.sessions.messages('s1', { limit: '5' as never }), 'limit', /number/],
    ['after not a string', () => client.sessions.messages('s1', { after: 5 as never }), 'after', /string/],
    [
      'a query that is an array',
      () => client.sessions.messages('s1', [] as never),
      'body',
      /object|expected/,
    ],
    ['a messages read of a bad id', () => client.sessions.messages('a/b'), 'sessionId', /'\/'/],
    [
      'newBudget NaN',
      () => client.sessions.resume('s1', { newBudget: Number.NaN }),
      'newBudget',
      /number|finite/,
    ],
    [
      'newBudget Infinity',
      () => client.sessions.resume('s1', { newBudget: Infinity }),
      'newBudget',
      /number|finite/,
    ],
    [
      'maxIterations 1.5',
      () => client.sessions.create({ goal: 'g', guardrails: { maxIterations: 1.5 } }),
      'guardrails.maxIterations',
      /whole number/,
    ],
    [
      'context that is an array',
      () => client.sessions.create({ goal: 'g', context: [] as never }),
      'context',
      /object/,
    ],
    ['an empty session id', () => client.sessions.get(''), 'sessionId', /empty/],
    ['a session id with a slash', () => client.sessions.get('a/../b'), 'sessionId', /'\/'/],
    ['a session id that is a dot segment', () => client.sessions.get('..'), 'sessionId', /'\.\.'/],
    ['an input id with a #', () => client.sessions.respond('s1', 'in#1', {}), 'inputId', /'#'/],
    [
      'choiceIds that are not strings',
      () => client.sessions.respond('s1', 'in1', { choiceIds: [1] as never }),
      'choiceIds.0',
      /string/,
    ],
  ])('%s', async (_name, call, field, rule) => {
    const error = await refused(call);
    expect(error.issues.map((i) => i.field)).toContain(field);
    expect(error.issues.find((i) => i.field === field)?.message).toMatch(rule);
    expect(error.message).toContain(field);
  });

  it('refuses a bad id every time, and checks an id once per client only after it passed', async () => {
    // Ids that passed are remembered with their paths; one that failed must fail again, whatever came between.
    const pool = agent.get('http://service.test');
    pool.intercept({ path: '/v1/sessions/s%201' }).reply(200, { sessionId: 's 1', status: 'running' });
    pool
      .intercept({ path: '/v1/sessions/s%201/messages?limit=5' })
      .reply(200, { messages: [], pagination: { hasMore: false } });
    await refused(() => client.sessions.get('x?y'));
    expect((await client.sessions.get('s 1')).sessionId).toBe('s 1');
    expect((await client.sessions.messages('s 1', { limit: 5 })).messages).toEqual([]);
    const again = await refused(() => client.sessions.messages('x?y'));
    expect(again.issues[0]?.field).toBe('sessionId');
  });

  it('keeps extra guardrail keys', async () => {
    agent
      .get('http://service.test')
      .intercept({ path: '/v1/sessions', method: 'POST' })
      .reply(201, (opts) => {
        const body = JSON.parse(String(opts.body));
        expect(body.guardrails).toEqual({ maxIterations: 3, allowNetwork: false });
        return { sessionId: 's1', roundId: 'r1', status: 'queued' };
      });
    await client.sessions.create({ goal: 'g', guardrails: { maxIterations: 3, allowNetwork: false } });
  });
});

describe('client options', () => {
  it.each([
    [{ baseUrl: '', apiKey: 'k' }, /baseUrl/],
    [{ baseUrl: 'ftp://x', apiKey: 'k' }, /baseUrl.*http/],
    [{ baseUrl: 'http://x', apiKey: '' }, /apiKey/],
    [{ baseUrl: 'http://x', apiKey: 'k', maxRetries: -1 }, /maxRetries/],
    [{ baseUrl: 'http://x', apiKey: 'k', timeoutMs: 0 }, /timeoutMs/],
    [{ baseUrl: 'http://x', apiKey: 'k', authHeader: 'basic' }, /authHeader/],
  ])('rejects %j naming the option', (options, message) => {
    expect(() => new AgentSessionsClient(options as never)).toThrow(message);
  });
});
