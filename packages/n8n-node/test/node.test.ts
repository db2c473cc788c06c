import { isActiveStatus, isSuccessStatus } from '@agent-sessions/core/pure-without-zod';
import { type SpawnedEmulator, spawnEmulator } from '@agent-sessions/emulator/testing';
import { type IAuthenticateRuleResponseSuccessBody, type IDataObject, NodeApiError, NodeOperationError } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentSessions } from '../nodes/AgentSessions/AgentSessions.node';
import { AgentSessionsApi } from '../credentials/AgentSessionsApi.credentials';
import { fakeContext } from './fake-context';

const KEY = 'n8n_test_key_7d41a9c2';
const OTHER_KEY = 'n8n_other_key_0b6e33f1';
let emulator: SpawnedEmulator;
const node = new AgentSessions();

beforeAll(async () => {
  emulator = await spawnEmulator({ apiKeys: [KEY, OTHER_KEY], speed: 20 });
}, 30_000);

afterAll(async () => {
  await emulator?.close();
});

const run = async (items: Array<Record<string, unknown>>, extra: { continueOnFail?: boolean; apiKey?: string; signal?: AbortSignal } = {}) => {
  const ctx = fakeContext({
    items,
    credentials: { baseUrl: `${emulator.url}/`, apiKey: extra.apiKey ?? KEY },
    ...(extra.continueOnFail ? { continueOnFail: true } : {}),
    ...(extra.signal ? { signal: extra.signal } : {}),
  });
  const [out] = await node.execute.call(ctx);
  return { out: out ?? [], ctx };
};

const session = (operation: string, params: Record<string, unknown> = {}) => ({ resource: 'session', operation, ...params });
const humanInput = (operation: string, params: Record<string, unknown> = {}) => ({ resource: 'humanInput', operation, ...params });
const fast = { pollIntervalSeconds: 0.2, maxWaitSeconds: 30 };
/** What a rejected promise threw (undefined when it resolved). */
const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e,
  );
const humanInputPosts = async () => (await emulator.admin.stats()).requests['POST /v1/sessions/:id/human-input/:inputId'] ?? 0;

describe('Session', () => {
  it('Create and Wait until finished: the outcome, the final status and pairedItem', async () => {
    const { out } = await run([
      session('createAndWait', {
        goal: 'scenario:complete tidy the changelog',
        additionalFields: { budget: 3, maxIterations: 20, context: '{"repo":"acme/api"}', extraGuardrails: '{"maxToolCalls": 9}' },
        waitUntil: 'finished',
        ...fast,
      }),
    ]);
    expect(out).toHaveLength(1);
    expect(out[0]?.pairedItem).toEqual({ item: 0 });
    expect(out[0]?.json).toMatchObject({ outcome: 'finished', session: { completionReport: expect.any(Object) } });
    expect(isSuccessStatus(String(out[0]?.json.status))).toBe(true);
  });

  it('Create, Get, Get Messages (all and a page), Send Signal', async () => {
    const { out: created } = await run([session('create', { goal: 'scenario:long index the wiki' })]);
    const sessionId = String(created[0]?.json.sessionId);
    expect(created[0]?.json.status).toBe('queued');
    const { out: waited } = await run([session('wait', { sessionId, waitUntil: 'needsPerson', pollIntervalSeconds: 0.2, maxWaitSeconds: 1.5 })]);
    expect(waited[0]?.json.outcome).toBe('timed_out');
    const { out: got } = await run([session('get', { sessionId })]);
    expect(got[0]?.json).toMatchObject({ sessionId, status: 'running' });
    const { out: all } = await run([session('getMessages', { sessionId, returnAll: true })]);
    expect(all.length).toBeGreaterThan(2);
    expect(all.every((item) => typeof item.json.key === 'string' && item.pairedItem !== undefined)).toBe(true);
    const { out: page } = await run([session('getMessages', { sessionId, returnAll: false, limit: 2 })]);
    expect(page).toHaveLength(2);
    const { out: paused } = await run([session('sendSignal', { sessionId, signal: 'pause', reason: 'lunch' })]);
    expect(paused[0]?.json).toMatchObject({ sessionId, signal: 'pause' });
    await run([session('sendSignal', { sessionId, signal: 'resume', signalOptions: { message: 'go on' } })]);
    await run([session('sendSignal', { sessionId, signal: 'redirect', message: 'Only the docs' })]);
    const { out: cancelled } = await run([session('sendSignal', { sessionId, signal: 'cancel' })]);
    expect(cancelled[0]?.json.signal).toBe('cancel');
  });

  it('refuses bad parameters before any request, naming the field', async () => {
    // Core's friendly checks, named as the node's parameters.
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [session('create', { goal: '  ' }), /Parameter "Goal": Tell the agent what to do: the goal is empty/],
      [session('create', { goal: 'x', additionalFields: { context: '{"a":' } }), /"Context \(JSON\)" is not valid JSON/],
      [session('create', { goal: 'x', additionalFields: { context: '[1]' } }), /"Context \(JSON\)" must be a JSON object/],
      [session('create', { goal: 'x', additionalFields: { budget: -2 } }), /Parameter "Budget \(USD\)": The budget must be a positive number of USD/],
      [session('create', { goal: 'x', additionalFields: { maxIterations: 2.5 } }), /Parameter "Max Iterations": Max iterations must be a whole number/],
      [session('get', { sessionId: 'sess 1' }), /Parameter "Session ID": The session id "sess 1" contains spaces/],
      [session('getMessages', { sessionId: 's', returnAll: false, limit: 0 }), /"Limit" must be a whole number of at least 1/],
      [session('sendSignal', { sessionId: 's', signal: 'redirect', message: ' ' }), /Parameter "Message": Say where the agent should go instead/],
      [session('sendSignal', { sessionId: 's', signal: 'resume', signalOptions: { newBudget: 0 } }), /Parameter "New Budget \(USD\)"/],
      [session('wait', { sessionId: 's', pollIntervalSeconds: 0 }), /"Poll Interval \(Seconds\)"/],
    ];
    for (const [params, message] of cases) {
      const ctx = fakeContext({ items: [params], credentials: { baseUrl: emulator.url, apiKey: KEY } });
      const error = await errorOf(node.execute.call(ctx));
      expect(error, JSON.stringify(params)).toBeInstanceOf(NodeOperationError);
      expect((error as Error).message).toMatch(message);
      expect(ctx.requests, JSON.stringify(params)).toHaveLength(0);
    }
  });

  it('maps service errors to NodeApiError with the HTTP status: 401, 403, 404, 429', async () => {
    const statusOf = async (items: Array<Record<string, unknown>>, apiKey = KEY) => {
      const error = await errorOf(run(items, { apiKey }));
      expect(error).toBeInstanceOf(NodeApiError);
      expect(JSON.stringify(error)).not.toContain(KEY);
      return (error as NodeApiError).httpCode;
    };
    expect(await statusOf([session('get', { sessionId: 'sess_x' })], 'wrong_key_123456')).toBe('401');
    expect(await statusOf([session('get', { sessionId: 'sess_missing' })])).toBe('404');
    const { out } = await run([session('create', { goal: 'scenario:long mine' })], { apiKey: OTHER_KEY });
    expect(await statusOf([session('get', { sessionId: String(out[0]?.json.sessionId) })])).toBe('403');
    await emulator.admin.setFaults({ rate429: 1, retryAfterSeconds: 7, pathPattern: '^GET /v1/sessions/' });
    try {
      expect(await statusOf([session('get', { sessionId: 'sess_any' })])).toBe('429');
    } finally {
      await emulator.admin.clearFaults();
    }
  });

  it('an operation or resource the node lacks fails the step naming it', async () => {
    const unknownOperation = await errorOf(run([session('archive', { sessionId: 's' })]));
    expect(unknownOperation).toBeInstanceOf(NodeOperationError);
    expect((unknownOperation as Error).message).toBe('The operation "archive" is not supported');
    const unknownResource = await errorOf(run([{ resource: 'agent', operation: 'get' }]));
    expect((unknownResource as Error).message).toBe('The resource "agent" is not supported');
  });

  it('continueOnFail: a failed item becomes an error item, the others carry on', async () => {
    // Resource and operation are read once (n8n's router does so: they take no expressions).
    const { out: created } = await run([session('create', { goal: 'scenario:complete ok' })]);
    const sessionId = String(created[0]?.json.sessionId);
    const { out } = await run([session('get', { sessionId: 'sess_missing' }), session('get', { sessionId })], {
      continueOnFail: true,
    });
    expect(out).toHaveLength(2);
    expect(out[0]).toMatchObject({ json: { error: expect.stringMatching(/not found/i) }, pairedItem: { item: 0 } });
    expect(out[1]).toMatchObject({ json: { sessionId }, pairedItem: { item: 1 } });
  });

  it('stops waiting when the execution is cancelled: the wait fails, and polls no more', async () => {
    const { out } = await run([session('create', { goal: 'scenario:long forever' })]);
    const controller = new AbortController();
    // Two polls fit in the wait: one that was never stopped would poll again and end `timed_out`.
    const ctx = fakeContext({
      items: [session('wait', { sessionId: out[0]?.json.sessionId, waitUntil: 'finished', pollIntervalSeconds: 5, maxWaitSeconds: 10 })],
      credentials: { baseUrl: `${emulator.url}/`, apiKey: KEY },
      signal: controller.signal,
    });
    // Stopped once the first poll's answer is in: the wait is then asleep until the next one.
    ctx.onRequest = () => controller.abort();
    const error = await errorOf(node.execute.call(ctx));
    expect(error).toBeInstanceOf(NodeOperationError);
    expect((error as Error).message).toMatch(/^The execution was cancelled/);
    expect(ctx.requests.map((r) => `${r.method ?? 'GET'} ${new URL(r.url).pathname}`)).toEqual([
      `GET /v1/sessions/${out[0]?.json.sessionId}`,
    ]);
  });
});

describe('Human Input', () => {
  it('Wait -> Get Pending -> Respond -> Wait: an approval answered from a workflow', async () => {
    const { out } = await run([session('createAndWait', { goal: 'scenario:approval ship v2', waitUntil: 'needsPerson', ...fast })]);
    const result = out[0]?.json as IDataObject;
    expect(result.outcome).toBe('needs_person');
    expect(result.request).toMatchObject({ kind: 'approval', prompt: 'Deploy v2.3.1 to production?' });
    const sessionId = String(result.sessionId);
    const { out: pending } = await run([humanInput('getPending', { sessionId })]);
    expect(pending[0]?.json).toMatchObject({ pending: true, request: { inputId: (result.request as IDataObject).inputId } });
    const { out: answered } = await run([humanInput('respond', { sessionId, answerType: 'approval', approved: true })]);
    expect(answered[0]?.json).toMatchObject({ sessionId, answer: { approved: true } });
    const { out: done } = await run([session('wait', { sessionId, waitUntil: 'finished', ...fast })]);
    expect(done[0]?.json.outcome).toBe('finished');
    expect(isSuccessStatus(String(done[0]?.json.status))).toBe(true);
  });

  it('checks an answer against the question before sending it', async () => {
    const { out } = await run([session('createAndWait', { goal: 'scenario:multi_select regions', waitUntil: 'needsPerson', ...fast })]);
    const sessionId = String(out[0]?.json.sessionId);
    const before = await humanInputPosts();
    const bad = await errorOf(run([humanInput('respond', { sessionId, answerType: 'choices', choiceIds: 'eu, us, ap' })]));
    expect(bad).toBeInstanceOf(NodeOperationError);
    expect((bad as Error).message).toMatch(/choiceIds: Choose at most 2 options/);
    const wrongKind = await errorOf(run([humanInput('respond', { sessionId, answerType: 'choice', choiceId: 'mars' })]));
    expect((wrongKind as Error).message).toMatch(/choiceIds/);
    expect(await humanInputPosts()).toBe(before);
    const { out: ok } = await run([humanInput('respond', { sessionId, answerType: 'choices', choiceIds: 'eu,ap' })]);
    expect(ok[0]?.json.answer).toEqual({ choiceIds: ['eu', 'ap'] });
  });

  it('answers a multi-question request with JSON, and says when nothing is pending', async () => {
    const { out } = await run([session('createAndWait', { goal: 'scenario:multi_question publish', waitUntil: 'needsPerson', ...fast })]);
    const sessionId = String(out[0]?.json.sessionId);
    await run([humanInput('respond', { sessionId, answerType: 'answers', answers: '{"name":"Aurora","channel":"beta"}' })]);
    const { out: after } = await run([humanInput('getPending', { sessionId })]);
    expect(after[0]?.json.pending).toBe(false);
    const none = await errorOf(run([humanInput('respond', { sessionId, answerType: 'freeText', freeText: 'hi' })]));
    expect((none as Error).message).toMatch(/not waiting on a question/);
  });

  it('Wait reports cost_limit; Send Signal resumes with a new budget', async () => {
    const { out } = await run([
      session('createAndWait', { goal: 'scenario:cost_limit analyse', additionalFields: { budget: 0.2 }, waitUntil: 'needsPerson', ...fast }),
    ]);
    expect(out[0]?.json.outcome).toBe('cost_limit');
    const sessionId = String(out[0]?.json.sessionId);
    await run([session('sendSignal', { sessionId, signal: 'resume', signalOptions: { newBudget: 20 } })]);
    const { out: done } = await run([session('wait', { sessionId, waitUntil: 'finished', ...fast })]);
    expect(done[0]?.json.outcome).toBe('finished');
  });
});

describe('Human Input through a form', () => {
  it('Wait outputs the question as form fields; Respond (From Form Response) maps the reply back and says what it answered', async () => {
    const { out } = await run([session('createAndWait', { goal: 'scenario:single_select env', waitUntil: 'needsPerson', ...fast })]);
    const request = out[0]?.json.request as IDataObject;
    expect(request.formFields).toEqual([
      {
        fieldLabel: 'Which environment should I deploy to?',
        fieldType: 'dropdown',
        requiredField: true,
        fieldOptions: { values: [{ option: 'Staging' }, { option: 'Production' }, { option: 'Canary (5% of traffic)' }] },
      },
    ]);
    const sessionId = String(out[0]?.json.sessionId);
    const { out: pending } = await run([humanInput('getPending', { sessionId })]);
    expect((pending[0]?.json.request as IDataObject).formFields).toEqual(request.formFields);
    const before = Date.now();
    const formReply = { 'Which environment should I deploy to?': 'Canary (5% of traffic)', submittedAt: '2026-01-01T00:00:00Z', formMode: 'production' };
    const { out: answered } = await run([humanInput('respond', { sessionId, answerType: 'formResponse', formResponse: formReply })]);
    expect(answered[0]?.json).toMatchObject({
      sessionId,
      inputId: request.inputId,
      answer: { choiceId: 'canary' },
      question: { inputId: request.inputId, kind: 'single_select', prompt: 'Which environment should I deploy to?' },
      status: 'responded',
    });
    expect(Date.parse(String(answered[0]?.json.answeredAt))).toBeGreaterThanOrEqual(before - 1000);
    // The answer body as the service received it (the emulator's admin view).
    const { sessions } = (await (await fetch(`${emulator.url}/_emulator/sessions`)).json()) as {
      sessions: Array<{ sessionId: string; humanInputs: unknown[] }>;
    };
    expect(sessions.find((s) => s.sessionId === sessionId)?.humanInputs).toEqual([
      { inputId: request.inputId, kind: 'single_select', status: 'responded', answer: { choiceId: 'canary' } },
    ]);
  });

  it('a reply whose label is not an option fails the step naming the field, and nothing is sent', async () => {
    const { out } = await run([session('createAndWait', { goal: 'scenario:multi_select regions', waitUntil: 'needsPerson', ...fast })]);
    const sessionId = String(out[0]?.json.sessionId);
    const before = await humanInputPosts();
    const bad = await errorOf(run([
      humanInput('respond', { sessionId, answerType: 'formResponse', formResponse: { 'Which regions should I deploy to?': ['Europe', 'Mars'] } }),
    ]));
    expect(bad).toBeInstanceOf(NodeOperationError);
    expect((bad as Error).message).toBe(
      'The form response does not answer the question "Which regions should I deploy to?": Field "Which regions should I deploy to?": "Mars" is not one of the options (Europe, US East, Asia Pacific)',
    );
    const tooMany = await errorOf(run([
      humanInput('respond', { sessionId, answerType: 'formResponse', formResponse: '{"Which regions should I deploy to?": ["Europe", "US East", "Asia Pacific"]}' }),
    ]));
    expect((tooMany as Error).message).toMatch(/Field "Which regions should I deploy to\?": Choose at most 2 options/);
    expect(await humanInputPosts()).toBe(before);
  });
});

describe('Cancel Session When Stopped', () => {
  const stoppedWait = async (cancelOnStop: boolean) => {
    const { out } = await run([session('create', { goal: 'scenario:long forever' })]);
    const sessionId = String(out[0]?.json.sessionId);
    const controller = new AbortController();
    const ctx = fakeContext({
      items: [session('wait', { sessionId, waitUntil: 'finished', pollIntervalSeconds: 30, maxWaitSeconds: 600, waitOptions: { cancelOnStop } })],
      credentials: { baseUrl: emulator.url, apiKey: KEY },
      signal: controller.signal,
    });
    // Stop the execution as the wait's first read of the session returns: it then sleeps on a stopped signal.
    ctx.onRequest = () => controller.abort();
    const result = await node.execute.call(ctx).then(
      ([items]) => ({ items: items ?? [] }),
      (error: unknown) => ({ error }),
    );
    const { out: got } = await run([session('get', { sessionId })]);
    return { result, status: got[0]?.json.status };
  };

  it('on: stopping the execution cancels the session, and the output says so', async () => {
    const { result, status } = await stoppedWait(true);
    expect('items' in result && result.items[0]?.json).toMatchObject({ outcome: 'execution_stopped', sessionCancelled: true, status: 'cancelled' });
    expect(status).toBe('cancelled');
  });

  it('off (the default): the step stops, the session runs on', async () => {
    const { result, status } = await stoppedWait(false);
    expect('error' in result).toBe(true);
    expect(status).not.toBe('cancelled');
    expect(isActiveStatus(String(status)), String(status)).toBe(true);
  });
});

describe('credential test', () => {
  // n8n runs the declarative test (real n8n proves it: test/real-n8n); here, what it rests on: the
  // service's answer to its request for a wrong key is one its rules refuse, and for a right key none is.
  const { request, rules } = new AgentSessionsApi().test;
  const errorFor = async (apiKey: string) => {
    const response = await fetch(`${emulator.url}${request.url}`, { method: request.method, headers: { authorization: `Bearer ${apiKey}` } });
    return { status: response.status, error: ((await response.json()) as { error?: string }).error };
  };
  const refusedBy = (error: string | undefined) =>
    ((rules ?? []) as IAuthenticateRuleResponseSuccessBody[]).filter((rule) => rule.properties.key === 'error' && rule.properties.value === error);

  it('asks with status errors ignored, so the answer is read by the rules', () => {
    expect(request).toMatchObject({ baseURL: '={{$credentials.baseUrl}}', method: 'GET', ignoreHttpStatusErrors: true });
  });

  it('refuses a wrong key and a missing one, and passes a right one', async () => {
    for (const key of ['wrong_key_123456', '']) {
      const answer = await errorFor(key);
      expect(answer.status).toBe(401);
      expect(refusedBy(answer.error).map((rule) => rule.properties.message)).toEqual([expect.stringMatching(/refused \(401\)/)]);
    }
    const right = await errorFor(KEY);
    expect(right.status).toBe(404);
    expect(refusedBy(right.error)).toEqual([]);
  });
});
