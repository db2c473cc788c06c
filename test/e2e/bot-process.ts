import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulatorHere, type TestEmulator } from '@agent-sessions/emulator/testing';
import { type RunningSandbox, type SandboxOptions, startSandbox } from '@agent-sessions/slack-sandbox';
import { afterAll, beforeAll } from 'vitest';
import { patient } from '../support/patience.js';
import type { scratchDatabase } from './database.js';
import { API_KEY, botEnv, SETUP_TIMEOUT_MS, WAIT_MS } from './harness.js';

/**
 * Starting `node dist/main.js` (with PGlite) takes about a second of one core's time alone; the budget is
 * for a machine that is also running the rest of the suite, and scales with it.
 */
const BOT_START_MS = patient(60_000);

/**
 * The bot's default grace from SIGTERM to exit (SHUTDOWN_GRACE_SECONDS, 25 s), scaled as every budget is:
 * the suites that stop a bot mid-work check that it drained its posts within the grace, and on a busy
 * machine the posts drain slower.
 */
const SHUTDOWN_GRACE_S = Math.ceil(patient(25_000) / 1000);
const MAIN = fileURLToPath(new URL('../../packages/slack-bot/dist/main.js', import.meta.url));

export interface BotProcess {
  child: ChildProcess;
  eventsUrl: string;
  /** Everything the process wrote (its JSON log lines), for the secrets check. */
  output: string[];
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** A bot in Socket Mode: no Request URL; `url` serves its health, metrics and audit routes. */
export type SocketModeBotProcess = Omit<BotProcess, 'eventsUrl'> & { url: string };

/** What main.js prints once it serves: the Slack Request URL, or in Socket Mode where its routes are. */
const SERVING = {
  http: /Slack request URL: (\S+)/,
  socket: /Socket Mode; health, metrics and audit at (\S+)/,
};

/** The bot as production runs it: `node dist/main.js` configured by its environment. */
export async function spawnBot(env: Record<string, string>, output: string[] = []): Promise<BotProcess> {
  const { url, ...bot } = await spawnMain(env, output, SERVING.http);
  return { ...bot, eventsUrl: url };
}

/** `node dist/main.js` in Socket Mode: `env` must carry SLACK_APP_TOKEN (see socketModeEnv). */
export function spawnSocketModeBot(
  env: Record<string, string>,
  output: string[] = [],
): Promise<SocketModeBotProcess> {
  return spawnMain(env, output, SERVING.socket);
}

/** The environment `env` in Socket Mode: the sandbox's app-level token, and no signing secret. */
export function socketModeEnv(env: Record<string, string>, sandbox: RunningSandbox): Record<string, string> {
  const { SLACK_SIGNING_SECRET: _unused, ...rest } = env;
  return { ...rest, SLACK_APP_TOKEN: sandbox.appToken };
}

function spawnMain(
  env: Record<string, string>,
  output: string[],
  serving: RegExp,
): Promise<SocketModeBotProcess> {
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let buffered = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the bot did not start within ${BOT_START_MS / 1000} s:\n${buffered.slice(-2000)}`));
    }, BOT_START_MS);
    // `E2E_LOG_DIR` (see harness.ts): each process's output in a file of its own as well.
    const logFile = process.env.E2E_LOG_DIR && join(process.env.E2E_LOG_DIR, `bot-process.${child.pid}.log`);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      if (logFile) appendFileSync(logFile, text);
      buffered += text;
      output.push(...text.split('\n').filter(Boolean));
      const url = serving.exec(buffered)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({
          child,
          url,
          output,
          kill: async (signal = 'SIGKILL') => {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            await exited;
          },
        });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the bot exited (${code}) before listening:\n${buffered.slice(-2000)}`));
    });
  });
}

export interface BotProcesses {
  emulator: TestEmulator;
  sandbox: RunningSandbox;
  /** Every line the suite's bots wrote, for the secrets check. */
  output: string[];
  /** The bot's environment: `botEnv`, where the store lives (DATA_DIR or DATABASE_URL), then `extra`. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** `spawnBot` into `output`; the process is killed when the suite ends. */
  spawn(env: Record<string, string>): Promise<BotProcess>;
  /** The same in Socket Mode (`socketModeEnv`). */
  spawnSocketMode(env: Record<string, string>): Promise<SocketModeBotProcess>;
}

/**
 * One world for a suite of bot processes: an emulator, a sandbox and the bots' store, made before its tests;
 * after them every bot it spawned is killed, then the sandbox and emulator closed and the store removed.
 */
export function useBotProcesses(options: {
  emulatorSpeed: number;
  /** The sandbox's own options (e.g. `rateLimits: false`). */
  sandbox?: Omit<SandboxOptions, 'triggerTtlMs'>;
  /** A PGlite directory made under this prefix in the temp dir, or a scratch PostgreSQL database. */
  store: { dataDirPrefix: string } | { database: ReturnType<typeof scratchDatabase> };
  /** More emulator keys beside API_KEY, each its own account. */
  emulatorKeys?: string[];
}): BotProcesses {
  const { store } = options;
  const bots: Pick<BotProcess, 'kill'>[] = [];
  let dataDir: string | undefined;
  const world = { output: [] as string[] } as BotProcesses;
  world.env = (extra = {}) => ({
    ...botEnv(world.sandbox, world.emulator),
    SHUTDOWN_GRACE_SECONDS: String(SHUTDOWN_GRACE_S),
    ...('database' in store ? { DATABASE_URL: store.database.url } : { DATA_DIR: dataDir as string }),
    ...extra,
  });
  world.spawn = async (env) => {
    const bot = await spawnBot(env, world.output);
    bots.push(bot);
    return bot;
  };
  world.spawnSocketMode = async (env) => {
    const bot = await spawnSocketModeBot(env, world.output);
    bots.push(bot);
    return bot;
  };

  beforeAll(async () => {
    if ('database' in store) await store.database.create();
    world.emulator = await startEmulatorHere({
      apiKeys: [API_KEY, ...(options.emulatorKeys ?? [])],
      speed: options.emulatorSpeed,
    });
    world.sandbox = await startSandbox({ ...options.sandbox, triggerTtlMs: 10_000, waitTimeoutMs: WAIT_MS });
    if ('dataDirPrefix' in store) dataDir = mkdtempSync(join(tmpdir(), store.dataDirPrefix));
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    for (const bot of bots) await bot.kill();
    await world.sandbox?.close();
    await world.emulator?.close();
    if ('database' in store) await store.database.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });
  return world;
}
