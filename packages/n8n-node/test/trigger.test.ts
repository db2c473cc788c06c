import { type SpawnedEmulator, spawnEmulator } from '@agent-sessions/emulator/testing';
import { type IDataObject, type INodeExecutionData, NodeApiError, NodeOperationError } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patient } from '../../../test/support/patience.js';
import { AgentSessions } from '../nodes/AgentSessions/AgentSessions.node';
import { AgentSessionsTrigger } from '../nodes/AgentSessionsTrigger/AgentSessionsTrigger.node';
import {
  decide,
  MAX_FOLLOWED_SESSIONS,
  parseSessionIds,
  readMemory,
  type SessionEvent,
  type TriggerEvent,
  type TriggerMemory,
} from '../nodes/AgentSessionsTrigger/events';
import { fakeContext } from './fake-context';
import { pollContext } from './poll-context';

const KEY = 'n8n_trigger_key_3e9a51c7';
const ALL_EVENTS: TriggerEvent[] = ['question', 'finished', 'failed', 'cancelled', 'budgetReached'];
let emulator: SpawnedEmulator;

beforeAll(async () => {
  emulator = await spawnEmulator({ apiKeys: [KEY], speed: 20 });
}, 30_000);

afterAll(async () => {
  await emulator?.close();
});

/** A session started elsewhere: straight through the service's HTTP API, not through the node. */
async function startSession(goal: string, guardrails: Record<string, unknown> = {}): Promise<string> {
  const response = await fetch(`${emulator.url}/v1/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ goal, guardrails }),
  });
  expect(response.status).toBe(201);
  return String(((await response.json()) as { sessionId: string }).sessionId);
}

const adminSession = async (sessionId: string) =>
  (await emulator.admin.sessions()).find((s) => s.sessionId === sessionId);

/** Waits (bounded) until the emulator shows the session in a state. */
async function sessionReaches(sessionId: string, done: (status: string) => boolean): Promise<void> {
  const deadline = Date.now() + patient(20_000);
  for (;;) {
    const status = (await adminSession(sessionId))?.status ?? '';
    if (done(status)) return;
    if (Date.now() > deadline) throw new Error(`session ${sessionId} stayed ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One poll of a trigger (a fresh node object each time, as after a restart of n8n) with its static data. */
async function poll(
  staticData: IDataObject,
  parameters: Record<string, unknown>,
  mode: 'trigger' | 'manual' = 'trigger',
): Promise<{ items: INodeExecutionData[] | null; requests: number }> {
  const ctx = pollContext({ parameters, credentials: { baseUrl: emulator.url, apiKey: KEY }, staticData, mode });
  const out = await new AgentSessionsTrigger().poll.call(ctx);
  return { items: out?.[0] ?? null, requests: ctx.requests.length };
}

/** n8n saves static data as JSON in its database and reads it back after a restart. */
const restarted = (staticData: IDataObject): IDataObject => JSON.parse(JSON.stringify(staticData)) as IDataObject;

const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('Agent Sessions Trigger against the emulator', () => {
  it('fires a question once, is answered by the Answer operation, then fires the finish once, across a restart', async () => {
    const sessionId = await startSession('scenario:approval deploy the API');
    const parameters = { events: ALL_EVENTS, sessionIds: sessionId };
    let staticData: IDataObject = {};
    await sessionReaches(sessionId, (s) => s === 'waiting_human');

    const first = await poll(staticData, parameters);
    expect(first.items).toHaveLength(1);
    const question = first.items?.[0]?.json as IDataObject & { request: IDataObject };
    expect(question).toMatchObject({ event: 'question', sessionId, status: 'waiting_human' });
    expect(question.request).toMatchObject({ kind: 'approval', inputId: expect.any(String), formFields: expect.any(Array) });
    expect((question.request.formFields as IDataObject[]).map((f) => f.fieldLabel)).toEqual([question.request.prompt, 'Reason']);

    // Polled again, and after a restart: the question is not fired twice.
    expect((await poll(staticData, parameters)).items).toBeNull();
    staticData = restarted(staticData);
    expect((await poll(staticData, parameters)).items).toBeNull();

    // The next node answers with the node's Answer (Respond) operation, from the trigger's item.
    const answer = fakeContext({
      items: [
        {
          resource: 'humanInput',
          operation: 'respond',
          sessionId: question.sessionId,
          inputId: question.request.inputId,
          answerType: 'approval',
          approved: true,
        },
      ],
      credentials: { baseUrl: emulator.url, apiKey: KEY },
    });
    const [answered] = await new AgentSessions().execute.call(answer);
    expect(answered?.[0]?.json).toMatchObject({ sessionId, inputId: question.request.inputId, status: 'responded' });
    await sessionReaches(sessionId, (s) => s === 'completed');

    const finish = await poll(staticData, parameters);
    expect(finish.items?.map((i) => i.json.event)).toEqual(['finished']);
    expect(finish.items?.[0]?.json).toMatchObject({ eventId: `finished:${sessionId}`, session: { completionReport: expect.any(Object) } });
    staticData = restarted(staticData);
    expect((await poll(staticData, parameters)).items).toBeNull();
    expect((await poll(staticData, parameters)).items).toBeNull();
    expect((await adminSession(sessionId))?.humanInputs.map((h) => h.answer)).toEqual([{ approved: true }]);
  });

  it('on its first poll fires what still waits (a question, a budget stop) but not sessions that had already ended', async () => {
    const ended = await startSession('scenario:complete tidy the changelog');
    const failed = await startSession('scenario:error break the build');
    const asking = await startSession('scenario:free_text prepare the release notes');
    const broke = await startSession('scenario:cost_limit analyse the logs', { maxCostPerSession: 0.2 });
    await sessionReaches(ended, (s) => s === 'completed');
    await sessionReaches(failed, (s) => s === 'error');
    await sessionReaches(asking, (s) => s === 'waiting_human');
    await sessionReaches(broke, (s) => s === 'cost_limit');
    const staticData: IDataObject = {};
    const parameters = { events: ALL_EVENTS, sessionIds: [ended, failed, asking, broke].join(',\n') };

    const first = await poll(staticData, parameters);
    expect(first.items?.map((i) => [i.json.sessionId, i.json.event])).toEqual([
      [asking, 'question'],
      [broke, 'budgetReached'],
    ]);
    expect((await poll(staticData, parameters)).items).toBeNull();

    // A session that ends after the first poll fires, even one added to the list later.
    const later = await startSession('scenario:complete write the summary');
    await sessionReaches(later, (s) => s === 'completed');
    const added = await poll(staticData, { ...parameters, sessionIds: `${parameters.sessionIds} ${later}` });
    expect(added.items?.map((i) => [i.json.sessionId, i.json.event])).toEqual([[later, 'finished']]);
  });

  it('fires only the chosen events, failed and cancelled among them, and remembers the others unfired', async () => {
    const long = await startSession('scenario:long index the wiki');
    const asking = await startSession('scenario:free_text prepare the release notes');
    await sessionReaches(asking, (s) => s === 'waiting_human');
    await sessionReaches(long, (s) => s === 'running');
    const staticData: IDataObject = {};
    expect((await poll(staticData, { events: ['failed', 'cancelled'], sessionIds: [long, asking] })).items).toBeNull();

    // Started after the first poll, so its end is news whenever it comes.
    const failing = await startSession('scenario:error break the build');
    const parameters = { events: ['failed', 'cancelled'], sessionIds: [failing, long, asking] };
    await sessionReaches(failing, (s) => s === 'error');
    const cancel = await fetch(`${emulator.url}/v1/sessions/${long}/signal`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'cancel', reason: 'enough' }),
    });
    expect(cancel.status).toBe(202);
    await sessionReaches(long, (s) => s === 'cancelled');
    const ends = await poll(staticData, parameters);
    expect(ends.items?.map((i) => [i.json.sessionId, i.json.event])).toEqual([
      [failing, 'failed'],
      [long, 'cancelled'],
    ]);
    // The question was seen (not chosen): choosing it later does not fire it for the past.
    expect((await poll(staticData, { ...parameters, events: ALL_EVENTS })).items).toBeNull();
  });

  it('"Fetch Test Event" shows the latest question, or a sample, and uses up nothing', async () => {
    const asking = await startSession('scenario:single_select run the smoke tests');
    await sessionReaches(asking, (s) => s === 'waiting_human');
    const staticData: IDataObject = {};
    const manual = await poll(staticData, { events: ALL_EVENTS, sessionIds: asking }, 'manual');
    expect(manual.items?.map((i) => i.json.event)).toEqual(['question']);
    expect(manual.items?.[0]?.json.request).toMatchObject({ kind: 'single_select', formFields: expect.any(Array) });
    expect(staticData).toEqual({});
    // The active workflow still gets it.
    expect((await poll(staticData, { events: ALL_EVENTS, sessionIds: asking })).items?.map((i) => i.json.event)).toEqual(['question']);

    const quiet = await startSession('scenario:long index the wiki');
    const sample = await poll({}, { events: ALL_EVENTS, sessionIds: quiet }, 'manual');
    expect(sample.items).toHaveLength(1);
    expect(sample.items?.[0]?.json).toMatchObject({ sample: true, event: 'question', request: { inputId: 'in_sample' } });
  });

  it('fails a poll that cannot read a session, naming it, and remembers nothing of it', async () => {
    const asking = await startSession('scenario:free_text prepare the release notes');
    await sessionReaches(asking, (s) => s === 'waiting_human');
    const staticData: IDataObject = {};
    const error = await errorOf(poll(staticData, { events: ALL_EVENTS, sessionIds: `${asking} sess_does_not_exist` }));
    expect(error).toBeInstanceOf(NodeApiError);
    expect((error as NodeApiError).httpCode).toBe('404');
    expect(String((error as NodeApiError).description)).toContain('sess_does_not_exist');
    expect(staticData).toEqual({});
    // Fixed, the question fires as if the failed poll had not happened.
    expect((await poll(staticData, { events: ALL_EVENTS, sessionIds: asking })).items?.map((i) => i.json.event)).toEqual(['question']);
  });

  it('refuses bad parameters before any request, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ events: ALL_EVENTS, sessionIds: ' ' }, /Parameter "Session IDs" is required/],
      [{ events: ALL_EVENTS, sessionIds: 'a/b' }, /Parameter "Session IDs": The session id "a\/b" is not an id/],
      [{ events: ALL_EVENTS, sessionIds: [{ id: 'x' }] }, /Parameter "Session IDs": \{"id":"x"\} is not a session ID/],
      [{ events: [], sessionIds: 'sess_1' }, /Parameter "Events": choose at least one event/],
    ];
    for (const [parameters, message] of cases) {
      const ctx = pollContext({ parameters, credentials: { baseUrl: emulator.url, apiKey: KEY }, staticData: {} });
      const error = await errorOf(new AgentSessionsTrigger().poll.call(ctx));
      expect(error, JSON.stringify(parameters)).toBeInstanceOf(NodeOperationError);
      expect((error as Error).message).toMatch(message);
      expect(ctx.requests).toHaveLength(0);
    }
  });
});

describe('the trigger’s memory (pure)', () => {
  const question = (id: string, input: string): SessionEvent => ({ event: 'question', eventId: `question:${id}:${input}` });
  const finished = (id: string): SessionEvent => ({ event: 'finished', eventId: `finished:${id}` });
  const all = new Set(ALL_EVENTS);

  it('fires each question of a session once, and forgets sessions no longer followed', () => {
    let memory: TriggerMemory = { started: true, fired: {} };
    const step = (current: Array<{ sessionId: string; event: SessionEvent | undefined }>) => {
      const decision = decide(memory, current, all);
      memory = decision.memory;
      return decision.fire.map((f) => f.event.eventId);
    };
    expect(step([{ sessionId: 's1', event: question('s1', 'in_1') }])).toEqual(['question:s1:in_1']);
    expect(step([{ sessionId: 's1', event: question('s1', 'in_1') }])).toEqual([]);
    expect(step([{ sessionId: 's1', event: undefined }])).toEqual([]);
    expect(step([{ sessionId: 's1', event: question('s1', 'in_2') }])).toEqual(['question:s1:in_2']);
    expect(step([{ sessionId: 's2', event: finished('s2') }])).toEqual(['finished:s2']);
    expect(Object.keys(memory.fired)).toEqual(['s2']);
  });

  it('reads whatever static data holds without throwing', () => {
    expect(readMemory({})).toEqual({ started: false, fired: {} });
    expect(readMemory({ started: 'yes', fired: [1] })).toEqual({ started: false, fired: {} });
    expect(readMemory({ started: true, fired: { s1: ['a', 2, null], s2: 'x' } })).toEqual({ started: true, fired: { s1: ['a'] } });
  });

  it('reads Session IDs as text or as a list, once each, at most the limit', () => {
    expect(parseSessionIds('a, b\nc  a')).toEqual({ ok: true, ids: ['a', 'b', 'c'] });
    expect(parseSessionIds(['a', { sessionId: 'b' }, 7])).toEqual({ ok: true, ids: ['a', 'b', '7'] });
    const many = Array.from({ length: MAX_FOLLOWED_SESSIONS + 1 }, (_, n) => `s${n}`);
    expect(parseSessionIds(many)).toEqual({
      ok: false,
      message: `Parameter "Session IDs": at most ${MAX_FOLLOWED_SESSIONS} sessions per trigger (got ${MAX_FOLLOWED_SESSIONS + 1})`,
    });
  });
});
