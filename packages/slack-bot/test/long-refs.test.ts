/**
 * A select whose session and question ids are longer than a block_id may be (255): its ref rides as the
 * prompt's short key. End to end through Slack's path: the prompt posted through the Web API (the
 * sandbox refuses blocks over Slack's limits), the option picked by a person, the signed block action
 * through Bolt to the listener, the answering service, and the answer over HTTP to the service.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentSessionsClient } from '@agent-sessions/core';
import { type RunningSandbox, startSandbox } from '@agent-sessions/slack-sandbox';
import type { App } from '@slack/bolt';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSlackApp, registerListeners } from '../src/app.js';
import { promptMessage } from '../src/blocks/prompt.js';
import { AnsweringService } from '../src/services/people/answering.js';
import { Notifier } from '../src/services/slack-out/thread/index.js';
import {
  FakePolicy,
  FakePrompts,
  FakeSessions,
  FakeVisibility,
  logger,
  metrics,
  request,
  session,
} from './fakes.js';
import { asContext, fakeContext, recorder } from './listeners/fake-args.js';

const SESSION = `sess_${'a'.repeat(200)}`;
const INPUT = `in_${'b'.repeat(100)}`;
const OPTIONS = Array.from({ length: 8 }, (_, i) => ({ id: `opt_${i}`, label: `Option ${i}` }));

let sandbox: RunningSandbox;
let app: App;
let service: Server;
const answers: Array<{ url: string; body: unknown }> = [];

beforeAll(async () => {
  sandbox = await startSandbox();
  // The Agent Session Service's answer endpoint, as far as this test needs it.
  service = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      answers.push({ url: req.url ?? '', body: JSON.parse(body) });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ inputId: INPUT, status: 'responded' }));
    });
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  const client = new AgentSessionsClient({
    baseUrl: `http://127.0.0.1:${(service.address() as AddressInfo).port}`,
    apiKey: 'test-key-long-refs',
  });
  app = createSlackApp({
    botToken: sandbox.botToken,
    signingSecret: sandbox.signingSecret,
    apiUrl: sandbox.apiUrl,
    routes: [],
    logger,
  });
  const sessions = new FakeSessions();
  sessions.add(session({ sessionId: SESSION }));
  prompts = new FakePrompts(sessions);
  const ctx = fakeContext(recorder().rec);
  const answering = new AnsweringService({
    client,
    prompts,
    slack: app.client,
    policy: new FakePolicy(),
    visibility: new FakeVisibility(),
    notifier: new Notifier({
      slack: app.client,
      follower: { poke: () => true },
      leases: { poke: async () => {} },
      logger,
    }),
    metrics: metrics(),
    logger,
  });
  registerListeners(app, { ...asContext(ctx), answering });
  const server = (await app.start({ port: 0, host: '127.0.0.1' })) as Server;
  eventsUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
});

let eventsUrl: string;

let prompts: FakePrompts;

afterAll(async () => {
  await app?.stop();
  await new Promise((resolve) => service?.close(resolve));
  await sandbox?.close();
});

it('a select too long for its block_id is answered through its short key', async () => {
  const question = request('single_select', { inputId: INPUT, options: OPTIONS });
  const message = promptMessage(question, { sessionId: SESSION, startedBy: 'U0ALICE' });
  const blockIds = message.blocks.map((b) => b.block_id ?? '');
  expect(JSON.stringify({ sessionId: SESSION, inputId: INPUT }).length).toBeGreaterThan(255);
  for (const id of blockIds) expect(id.length).toBeLessThanOrEqual(255);
  const posted = await app.client.chat.postMessage({ channel: 'C0AGENTS', ...message });
  prompts.add(SESSION, question, { messageTs: String(posted.ts) });

  const click = await sandbox.driver(eventsUrl).act({
    user: 'U0ALICE',
    channel: 'C0AGENTS',
    ts: String(posted.ts),
    actionId: 'input_select',
    value: '5',
  });
  expect(click.status).toBe(200);
  await sandbox.workspace.waitFor(() => (answers.length > 0 ? answers : undefined), {
    what: 'the answer at the service',
  });
  expect(answers).toEqual([
    { url: `/v1/sessions/${SESSION}/human-input/${INPUT}`, body: { choiceId: 'opt_5' } },
  ]);
  const shown = await sandbox.workspace.waitFor(
    () => {
      const m = sandbox.workspace.findMessage('C0AGENTS', String(posted.ts));
      return m && /answered/.test(JSON.stringify(m.blocks)) ? m : undefined;
    },
    { what: 'the prompt marked answered' },
  );
  expect(JSON.stringify(shown.blocks)).toContain('<@U0ALICE> answered: Option 5');
});
