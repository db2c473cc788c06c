import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { startEmulatorHere, type TestEmulator } from '@agent-sessions/emulator/testing';
import { loadConfig, type RunningBot, startBot } from '@agent-sessions/slack-bot';
import { functionsFromManifest, type RunningSandbox, startSandbox } from '@agent-sessions/slack-sandbox';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse } from 'yaml';
import { patient } from '../support/patience.js';
import { type ScratchStore, scratchStore } from './database.js';
import { ALICE, API_KEY, CHANNEL, captureLogs, FAST, SETUP_TIMEOUT_MS, textOf, WAIT_MS } from './harness.js';
import { confirmStep, isPrompt } from './helpers.js';
import { listeningSockets } from './sockets.js';

let emulator: TestEmulator;
let sandbox: RunningSandbox;
let store: ScratchStore;
let bot: RunningBot;
let port: number;

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

beforeAll(async () => {
  emulator = await startEmulatorHere({ apiKeys: [API_KEY], speed: 10 });
  // The manifest's Workflow Builder steps: function_executed reaches the bot over the socket too.
  const manifest = parse(readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8'));
  sandbox = await startSandbox({
    triggerTtlMs: 10_000,
    waitTimeoutMs: WAIT_MS,
    functions: functionsFromManifest(manifest),
  });
  store = await scratchStore();
  port = await freePort();
  // Socket Mode: an app-level token and no signing secret; Slack's requests arrive over a WebSocket.
  const config = loadConfig({
    SLACK_BOT_TOKEN: sandbox.botToken,
    SLACK_APP_TOKEN: sandbox.appToken,
    SLACK_API_URL: sandbox.apiUrl,
    AGENT_SERVICE_URL: emulator.url,
    AGENT_API_KEY: API_KEY,
    PORT: String(port),
    HOST: '127.0.0.1',
    WORKFLOW_STEP_CHECK_EVERY: '200ms',
  });
  if (!config.slack || !config.service) throw new Error('configured above');
  bot = await startBot(
    { ...config, slack: config.slack, service: config.service },
    { ...FAST, store: store.store, logDestination: captureLogs() },
  );
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await bot?.stop();
  await store?.close();
  await sandbox?.close();
  await emulator?.close();
});

it('serves health and metrics on HOST:PORT, not on every interface (Bolt’s receiver ignores HOST)', async () => {
  const bound = listeningSockets(process.pid).filter((socket) => socket.port === port);
  expect(bound.map((socket) => socket.address)).toEqual(['127.0.0.1']);
  expect(bot.url).toBe(`http://127.0.0.1:${port}`);
  expect((await fetch(`${bot.url}/metrics`)).status).toBe(200);
  expect((await fetch(`${bot.url}/nothing-here`)).status).toBe(404);
});

it('runs a session over Socket Mode: command, card, prompt, answer, completion; health on PORT', async () => {
  expect(bot.eventsUrl).toBeUndefined();
  await sandbox.workspace.waitFor(() => sandbox.socketMode.connected === 1, {
    what: 'the bot connected over Socket Mode',
  });
  const driver = sandbox.socketDriver();
  const help = await driver.command({ user: ALICE, channel: CHANNEL, text: 'help' });
  expect(help.body).toMatchObject({ text: expect.stringContaining('/agent start') });
  await driver.command({ user: ALICE, channel: CHANNEL, text: 'start scenario:approval over a socket' });
  const ws = sandbox.workspace;
  const card = await ws.waitFor(
    () => (ws.messages.get(CHANNEL) ?? []).find((m) => !m.thread_ts && /over a socket/.test(textOf(m))),
    { what: 'the card' },
  );
  const prompt = await ws.waitFor(() => ws.replies(CHANNEL, card.ts).find(isPrompt), {
    what: 'the prompt',
    timeoutMs: patient(15_000),
  });
  await driver.act({ user: ALICE, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' });
  await ws.waitFor(() => /Completed/.test(textOf(ws.findMessage(CHANNEL, card.ts))), {
    what: 'completion',
    timeoutMs: patient(15_000),
  });
  const health = await fetch(`${bot.url}/healthz`);
  expect(health.status).toBe(200);
});

it(
  'a Workflow Builder step arrives over the socket and completes with the session’s outputs',
  async () => {
    const ws = sandbox.workspace;
    const step = await sandbox.socketDriver().runStep({
      callbackId: 'run_agent_session',
      inputs: { goal: 'scenario:complete notes over the socket', channel: CHANNEL, mention: ALICE },
      user: ALICE,
    });
    expect(step.deliveries.map((d) => d.status)).toEqual([200]);
    await confirmStep(ws, sandbox.socketDriver(), ALICE);
    const done = await ws.waitFor(
      () => {
        const e = ws.workflows.executions.get(step.execution.id);
        return e && e.state !== 'running' ? e : undefined;
      },
      { what: 'the step completed', timeoutMs: patient(30_000) },
    );
    expect(done).toMatchObject({ state: 'completed', completions: 1 });
    expect(done.outputs).toMatchObject({
      status: 'completed',
      result: expect.stringContaining('notes over the socket'),
    });
    const card = (ws.messages.get(CHANNEL) ?? []).find(
      (m) => /notes over the socket/.test(textOf(m)) && !m.thread_ts,
    );
    expect(textOf(card)).toContain('started by a workflow');
  },
  patient(60_000),
);
