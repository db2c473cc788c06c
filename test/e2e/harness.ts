import { appendFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Writable } from 'node:stream';
import { startEmulatorHere, type TestEmulator } from '@agent-sessions/emulator/testing';
import { type BotTuning, loadConfig, type RunningBot, type Store, startBot } from '@agent-sessions/slack-bot';
import {
  type RunningSandbox,
  type SandboxMessage,
  type SandboxOptions,
  type SandboxView,
  type SlackDriver,
  startSandbox,
} from '@agent-sessions/slack-sandbox';
import { afterAll, beforeAll, expect } from 'vitest';
import { patient } from '../support/patience.js';
import { scratchStore } from './database.js';

/** A key distinctive enough that finding it anywhere in the logs means it leaked. */
export const API_KEY = 'emu_e2e_secret_key_51f2c9a7';
export const ALICE = 'U0ALICE';
export const BOB = 'U0BOB';
export const CAROL = 'U0CAROL';
export const CHANNEL = 'C0AGENTS';

/**
 * The e2e files run side by side on a machine that may be busy: starting a world (emulator, store, bot)
 * can take a while, and so can a condition the tests wait for. Waits end as soon as the condition holds,
 * so a long limit costs nothing when all is well; both scale with the machine (test/support/patience.ts).
 */
export const SETUP_TIMEOUT_MS = patient(120_000);
export const WAIT_MS = patient(45_000);

/** Fast knobs: the emulator runs 10× real time, so the bot polls and edits far more often than in production. */
export const FAST: BotTuning = {
  schedule: { activeMinMs: 150, activeMaxMs: 600, needsPersonMs: 1_500, errorBaseMs: 200, errorMaxMs: 2_000 },
  cards: { minIntervalMs: 100, maxPerMinute: 6_000 },
  posts: { pendingGraceMs: 1_500 },
  leases: { ttlMs: 3_000, renewEveryMs: 500, pokeEveryMs: 200 },
};

type SlackLimits = Exclude<SandboxOptions['rateLimits'], false | undefined>;

/**
 * Slack's rate limits, `speed` times over, for the sandbox that enforces them and the bot that paces itself
 * under them alike: the limiter and the queue stay on, they just let more through. Run at Slack's own rates
 * a file's tests wait on a post a second in their channel (most of their time, far more than on the
 * agent); the suite that is about pacing keeps them (`slackSpeed: 1`).
 */
export function slackAt(speed: number): { limits: SlackLimits; outbound: BotTuning['outbound'] } {
  const rate = (perMinute: number, burst: number) => ({ perMinute: perMinute * speed, burst });
  return {
    // The sandbox's defaults are Slack's documented limits; here each a multiple of them.
    limits: {
      tiers: { 1: rate(1, 3), 2: rate(20, 20), 3: rate(50, 50), 4: rate(100, 100) },
      postPerChannel: rate(60, 5),
      postWorkspace: rate(300, 50),
      history: rate(50, 50),
    },
    // The bot's own defaults (a little under Slack's), the same multiple.
    outbound: {
      postPerSecond: (50 / 60) * speed,
      updatePerMinute: 45 * speed,
      tier3PerMinute: 45 * speed,
      tier4PerMinute: 90 * speed,
      historyPerMinute: 40 * speed,
    },
  };
}

export function botEnv(sandbox: RunningSandbox, emulator: TestEmulator, extra: Record<string, string> = {}) {
  return {
    SLACK_BOT_TOKEN: sandbox.botToken,
    SLACK_SIGNING_SECRET: sandbox.signingSecret,
    SLACK_API_URL: sandbox.apiUrl,
    AGENT_SERVICE_URL: emulator.url,
    AGENT_API_KEY: API_KEY,
    PORT: '0',
    HOST: '127.0.0.1',
    AGENT_APPROVERS: 'S0APPROVERS',
    FOLLOW_REQUESTS_PER_SECOND: '50',
    // The suites written for the card and its thread test them; the agent surface's own suites say `agent`.
    AGENT_SLACK_SURFACE: 'classic',
    ...extra,
  };
}

/**
 * Log lines of every bot of this test file, kept for the secrets tests. Files share a worker (and this
 * module), so `setup.ts` starts each file's lines afresh (`beginFileLogs`).
 */
export const allLogLines: string[] = [];
/** Which file's bots a log stream belongs to: a line an earlier file's bot writes late is not this file's. */
let logGeneration = 0;

export function beginFileLogs(): void {
  logGeneration += 1;
  allLogLines.length = 0;
}

/**
 * `E2E_LOG_DIR=dir`: every bot's log lines also go to `dir/<test file>.log`, to read after a failure (the
 * lines are otherwise only in memory). Read when a bot starts: the module outlives the file that loaded it.
 */
function logFileOfThisTest(): string | undefined {
  const dir = process.env.E2E_LOG_DIR;
  const testPath = expect.getState().testPath;
  return dir && testPath ? join(dir, `${basename(testPath)}.${process.pid}.log`) : undefined;
}

export function captureLogs(): Writable {
  const logFile = logFileOfThisTest();
  const generation = logGeneration;
  return new Writable({
    write(chunk, _encoding, done) {
      if (generation === logGeneration) allLogLines.push(...String(chunk).split('\n').filter(Boolean));
      if (logFile) appendFileSync(logFile, String(chunk));
      done();
    },
  });
}

export interface Harness {
  emulator: TestEmulator;
  sandbox: RunningSandbox;
  bot: RunningBot;
  store: Store;
  driver: SlackDriver;
  /** Runs `/agent start …` as `user` and waits for the card; returns the session id and card ts. */
  start(text: string, user?: string): Promise<{ sessionId: string; cardTs: string }>;
  thread(cardTs: string): SandboxMessage[];
  card(cardTs: string): SandboxMessage;
  /** Waits until a thread message satisfies `predicate`; returns it. */
  waitInThread(
    cardTs: string,
    predicate: (m: SandboxMessage) => boolean,
    what: string,
    timeoutMs?: number,
  ): Promise<SandboxMessage>;
  waitForCard(
    cardTs: string,
    predicate: (text: string) => boolean,
    what: string,
    timeoutMs?: number,
  ): Promise<SandboxMessage>;
  /** Presses `actionId` on the message at `ts` as `user` and waits for the modal it opens. */
  pressForModal(user: string, ts: string, actionId: string, what: string): Promise<SandboxView>;
  ephemeralsFor(user: string): string[];
  waitForEphemeral(user: string, pattern: RegExp, timeoutMs?: number): Promise<string>;
  stop(): Promise<void>;
}

export const textOf = (m: SandboxMessage | undefined): string =>
  m ? `${m.text ?? ''}\n${JSON.stringify(m.blocks ?? [])}` : '';

/**
 * Runs `send` (an `/agent start`) and waits for the session card it brings: the first top-level message in
 * #agents, new since just before `send`, naming a session.
 */
export async function newCard(
  ws: RunningSandbox['workspace'],
  send: () => Promise<unknown>,
  wait: { what: string; timeoutMs?: number },
): Promise<SandboxMessage> {
  const before = new Set((ws.messages.get(CHANNEL) ?? []).map((m) => m.ts));
  await send();
  return ws.waitFor(
    () =>
      (ws.messages.get(CHANNEL) ?? []).find(
        (m) => !before.has(m.ts) && !m.thread_ts && /session `/.test(textOf(m)),
      ),
    { timeoutMs: WAIT_MS, ...wait },
  );
}

/** One harness for a test file: started before its tests, stopped after them. */
export function useHarness(options: Parameters<typeof startHarness>[0] = {}): Harness {
  const h = {} as Harness;
  beforeAll(async () => {
    Object.assign(h, await startHarness(options));
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await h.stop?.();
  });
  return h;
}

export async function startHarness(
  options: {
    env?: Record<string, string>;
    tuning?: BotTuning;
    emulatorSpeed?: number;
    /** Slack's rate limits times this (default 10, like the emulator's clock); 1 is Slack's own. */
    slackSpeed?: number;
    /** The sandbox's own options (e.g. `rateLimits: false` while the bot does not pace itself). */
    sandbox?: Omit<SandboxOptions, 'triggerTtlMs'>;
    /** More emulator keys beside API_KEY (the bot's), each its own account (`acct_1`, `acct_2`, …). */
    emulatorKeys?: string[];
  } = {},
): Promise<Harness> {
  const emulator = await startEmulatorHere({
    apiKeys: [API_KEY, ...(options.emulatorKeys ?? [])],
    speed: options.emulatorSpeed ?? 10,
  });
  const slack = slackAt(options.slackSpeed ?? 10);
  const sandbox = await startSandbox({
    rateLimits: slack.limits,
    ...options.sandbox,
    triggerTtlMs: 10_000,
    waitTimeoutMs: WAIT_MS,
  });
  const scratch = await scratchStore();
  const store = scratch.store;
  const config = loadConfig(botEnv(sandbox, emulator, options.env));
  if (!config.slack || !config.service) throw new Error('the harness configures Slack and the service');
  const bot = await startBot(
    { ...config, slack: config.slack, service: config.service },
    {
      ...FAST,
      outbound: slack.outbound,
      ...options.tuning,
      store,
      logDestination: captureLogs(),
      logLevel: 'debug',
    },
  );
  const driver = sandbox.driver(bot.eventsUrl as string);
  const ws = sandbox.workspace;
  const h: Harness = {
    emulator,
    sandbox,
    bot,
    store,
    driver,
    async start(text, user = ALICE) {
      const card = await newCard(
        ws,
        async () => {
          const response = await driver.command({ user, channel: CHANNEL, text: `start ${text}` });
          if (response.status !== 200) throw new Error(`/agent start answered ${response.status}`);
        },
        { what: 'the session card', timeoutMs: WAIT_MS },
      );
      const sessionId = /session `([^`]+)`/.exec(textOf(card))?.[1];
      if (!sessionId) throw new Error('no session id on the card');
      return { sessionId, cardTs: card.ts };
    },
    thread: (cardTs) => ws.replies(CHANNEL, cardTs),
    card: (cardTs) => ws.findMessage(CHANNEL, cardTs) as SandboxMessage,
    waitInThread: (cardTs, predicate, what, timeoutMs = WAIT_MS) =>
      ws.waitFor(() => ws.replies(CHANNEL, cardTs).find(predicate), { what, timeoutMs }),
    waitForCard: (cardTs, predicate, what, timeoutMs = WAIT_MS) =>
      ws.waitFor(
        () => {
          const card = ws.findMessage(CHANNEL, cardTs);
          return card && predicate(textOf(card)) ? card : undefined;
        },
        { what, timeoutMs },
      ),
    async pressForModal(user, ts, actionId, what) {
      await driver.act({ user, channel: CHANNEL, ts, actionId });
      return ws.waitFor(() => driver.openModal(user), { what, timeoutMs: WAIT_MS });
    },
    ephemeralsFor: (user) =>
      ws.ephemerals
        .filter((e) => e.user === user)
        .map((e) => `${e.text ?? ''} ${JSON.stringify(e.blocks ?? [])}`),
    waitForEphemeral: (user, pattern, timeoutMs = WAIT_MS) =>
      ws.waitFor(
        () =>
          ws.ephemerals
            .filter((e) => e.user === user)
            .map((e) => `${e.text ?? ''}`)
            .find((t) => pattern.test(t)),
        { what: `an ephemeral for ${user} matching ${pattern}`, timeoutMs },
      ),
    async stop() {
      await bot.stop();
      await scratch.close();
      await sandbox.close();
      await emulator.close();
    },
  };
  return h;
}
