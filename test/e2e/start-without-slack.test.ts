import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningSandbox, startSandbox } from '@agent-sessions/slack-sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { patient } from '../support/patience.js';
import { type BotProcess, type SocketModeBotProcess, spawnBot, spawnSocketModeBot } from './bot-process.js';
import { API_KEY, SETUP_TIMEOUT_MS, WAIT_MS } from './harness.js';
import { expectNoSecrets } from './secrets.js';

// The built bot started while neither Slack nor the service answers (a Slack outage, a service being
// deployed): it must serve its probes at once, say in /readyz what it waits for, and turn ready by
// itself when Slack comes, here a sandbox started late on the port the bot was pointed at.

/**
 * How long the spawned bot has to say where it serves: the budget of every bot process start
 * (bot-process.ts). What is under test is that it serves at all while Slack and the service are down; how
 * soon is a figure for a benchmark, not for a suite that runs beside nine other files.
 */
const LIVE_WITHIN_MS = patient(60_000);

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A world with nothing listening where Slack and the service should be; the sandbox's secrets made now. */
async function unreachableWorld() {
  const [slackPort, servicePort] = [await freePort(), await freePort()];
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-sessions-no-slack-'));
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const secrets = {
    botToken: `xoxb-late-${randomBytes(16).toString('hex')}`,
    appToken: `xapp-late-${randomBytes(16).toString('hex')}`,
    signingSecret: randomBytes(24).toString('hex'),
  };
  const env = {
    SLACK_BOT_TOKEN: secrets.botToken,
    SLACK_SIGNING_SECRET: secrets.signingSecret,
    SLACK_API_URL: `http://127.0.0.1:${slackPort}/api/`,
    AGENT_SERVICE_URL: `http://127.0.0.1:${servicePort}`,
    AGENT_API_KEY: API_KEY,
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
  };
  const slackComes = async (): Promise<RunningSandbox> => {
    const sandbox = await startSandbox({
      ...secrets,
      port: slackPort,
      host: '127.0.0.1',
      waitTimeoutMs: WAIT_MS,
    });
    cleanups.push(() => sandbox.close());
    return sandbox;
  };
  return { env, secrets, slackComes };
}

/** The bot spawned, given until LIVE_WITHIN_MS to say where it serves. */
async function spawnedInTime<T extends { kill(): Promise<void> }>(spawning: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the bot served nothing within ${LIVE_WITHIN_MS / 1000} s`)),
      LIVE_WITHIN_MS,
    );
  });
  const bot = await Promise.race([spawning, late]).finally(() => clearTimeout(timer));
  cleanups.push(() => bot.kill());
  return bot;
}

async function probe(url: string, path: '/livez' | '/readyz') {
  const response = await fetch(`${url}${path}`);
  return { status: response.status, body: (await response.json()) as { ok: boolean; waiting?: string[] } };
}

/** The log lines that say `what` (a JSON line's msg). */
const linesSaying = (bot: Pick<BotProcess, 'output'>, what: string) =>
  bot.output.filter((line) => line.includes(what));

describe('a bot started while Slack and the service are unreachable', () => {
  it(
    'HTTP: /livez at once, /readyz 503 naming what it waits for, ready once Slack answers',
    async () => {
      const world = await unreachableWorld();
      const began = Date.now();
      const bot: BotProcess = await spawnedInTime(spawnBot(world.env));
      const url = bot.eventsUrl.replace(/\/slack\/events$/, '');
      expect(await probe(url, '/livez')).toEqual({ status: 200, body: { ok: true } });
      const before = await probe(url, '/readyz');
      expect(before.status).toBe(503);
      expect(before.body.waiting).toEqual([
        'slack: auth.test not answered yet',
        'service: not answered yet (not waited for)',
      ]);

      await world.slackComes();
      await expect
        .poll(() => probe(url, '/readyz'), { timeout: WAIT_MS, interval: 250 })
        .toEqual({
          status: 200,
          body: expect.objectContaining({
            ok: true,
            waiting: ['service: not answered yet (not waited for)'],
          }),
        });
      // Each attempt is not a log line: the wait is said when it begins and then once a minute.
      const answered = linesSaying(bot, '"msg":"slack answered"');
      expect(answered).toHaveLength(1);
      const attempts = (JSON.parse(answered[0] as string) as { attempts: number }).attempts;
      const minutes = Math.floor((Date.now() - began) / 60_000);
      expect(attempts).toBeGreaterThan(1);
      expect(linesSaying(bot, 'slack: auth.test not answered yet;').length).toBeLessThanOrEqual(1 + minutes);
      expect(linesSaying(bot, 'http request failed')).toEqual([]);
      expectNoSecrets(bot.output, [world.secrets.botToken, world.secrets.signingSecret, API_KEY]);
    },
    SETUP_TIMEOUT_MS,
  );

  it(
    'Socket Mode: /livez at once, /readyz names the connection, ready once Slack lets it connect',
    async () => {
      const world = await unreachableWorld();
      const { SLACK_SIGNING_SECRET: _none, ...env } = world.env;
      const began = Date.now();
      const bot: SocketModeBotProcess = await spawnedInTime(
        spawnSocketModeBot({ ...env, SLACK_APP_TOKEN: world.secrets.appToken }),
      );
      expect(await probe(bot.url, '/livez')).toEqual({ status: 200, body: { ok: true } });
      const before = await probe(bot.url, '/readyz');
      expect(before.status).toBe(503);
      expect(before.body.waiting).toEqual(
        expect.arrayContaining(['slack: Socket Mode not connected yet', 'slack: auth.test not answered yet']),
      );

      const sandbox = await world.slackComes();
      await expect
        .poll(() => probe(bot.url, '/readyz'), { timeout: WAIT_MS, interval: 250 })
        .toMatchObject({ status: 200, body: { ok: true } });
      expect(sandbox.socketMode.connected).toBe(1);
      // The Socket Mode client's attempts are its own (it retries apps.connections.open a hundred times):
      // their line is let through once a minute, not at each.
      const minutes = Math.floor((Date.now() - began) / 60_000);
      expect(linesSaying(bot, 'http request failed').length).toBeLessThanOrEqual(1 + minutes);
      expectNoSecrets(bot.output, [world.secrets.botToken, world.secrets.appToken, API_KEY]);
    },
    SETUP_TIMEOUT_MS,
  );
});
