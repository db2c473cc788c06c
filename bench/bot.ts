import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RunningSandbox } from '@agent-sessions/slack-sandbox';

const MAIN = fileURLToPath(new URL('../../packages/slack-bot/dist/main.js', import.meta.url));

export interface Bot {
  child: ChildProcess;
  eventsUrl: string;
  /** Spawn to listening (its "Slack request URL" line), in ms. */
  startMs: number;
  /** The last lines it wrote (its JSON log), for a report when something goes wrong. */
  tail(): string;
  stop(): Promise<void>;
}

/** What every bench bot is configured with: its sandbox workspace, the service, a port of its own. */
export function botEnv(sandbox: RunningSandbox, serviceUrl: string, apiKey: string): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: sandbox.botToken,
    SLACK_SIGNING_SECRET: sandbox.signingSecret,
    SLACK_API_URL: sandbox.apiUrl,
    AGENT_SERVICE_URL: serviceUrl,
    AGENT_API_KEY: apiKey,
    PORT: '0',
    HOST: '127.0.0.1',
    FOLLOW_REQUESTS_PER_SECOND: '50',
  };
}

/** The bot as production runs it (`node dist/main.js`, configured by its environment). */
export function spawnBot(
  env: Record<string, string>,
  startTimeoutMs = 120_000,
  /** Another build's `dist/main.js` (a checkout of another commit, for before/after in one run). */
  main = MAIN,
): Promise<Bot> {
  const started = performance.now();
  const child = spawn(process.execPath, [main], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  // BENCH_BOT_LOG=<file>: the bot's whole output kept there too, to look into a run afterwards.
  const logFile = process.env.BENCH_BOT_LOG;
  const onData = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
    if (logFile) appendFileSync(logFile, chunk);
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the bot did not start within ${startTimeoutMs / 1000} s:\n${output.slice(-2000)}`));
    }, startTimeoutMs);
    const onEarlyExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`the bot exited (${code}) before listening:\n${output.slice(-2000)}`));
    };
    const check = () => {
      const url = /Slack request URL: (\S+)/.exec(output)?.[1];
      if (!url) return;
      clearTimeout(timer);
      child.off('exit', onEarlyExit);
      child.stdout?.off('data', check);
      child.stderr?.off('data', check);
      resolve({
        child,
        eventsUrl: url,
        startMs: Math.round(performance.now() - started),
        tail: () => output.slice(-4000),
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await exited;
          clearTimeout(killer);
        },
      });
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.once('exit', onEarlyExit);
  });
}
