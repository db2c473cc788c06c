import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';
import { patient } from '../support/patience.js';

// `npm start` (scripts/start.mjs) as a person runs it, and the sandbox's page routes it is driven through.

const START = fileURLToPath(new URL('../../scripts/start.mjs', import.meta.url));

export interface NpmStart {
  child: ChildProcess;
  /** What it printed so far, stdout and stderr. */
  output(): string;
  sandboxUrl: string;
  eventsUrl: string;
  /** Sends `signal` (Ctrl-C is SIGINT) and resolves with the exit code. */
  stop(signal: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `npm start` with nothing configured but free ports and `dataDir`: the embedded defaults. No HOST:
 * where the default listens is under test. Resolves once it printed the URL to open.
 */
export async function startNpmStart(dataDir: string): Promise<NpmStart> {
  const { child, output } = spawnNpmStart(dataDir);
  // As long as any bot start is given (bot-process.ts); a start that never got there is not left behind.
  const sandboxUrl = await vi
    .waitFor(
      () => {
        const url = /Open (http:\/\/127\.0\.0\.1:\d+)\//.exec(output())?.[1];
        if (!url) throw new Error(`npm start printed no URL to open:\n${output().slice(-2000)}`);
        return url;
      },
      { timeout: patient(60_000), interval: 100 },
    )
    .catch((error: unknown) => {
      child.kill('SIGKILL');
      throw error;
    });
  return {
    child,
    output,
    sandboxUrl,
    eventsUrl: /Slack request URL (http:\/\/\S+\/slack\/events)/.exec(output())?.[1] ?? '',
    stop: (signal) => stopWithin(child, signal, output),
  };
}

/**
 * Sends `signal` and resolves with the exit code. A start that has not exited `patient(30 s)` later is
 * killed, and the wait fails naming the hang and what it printed last, instead of spending the test's whole
 * budget and leaving `npm start` and its children behind.
 */
async function stopWithin(
  child: ChildProcess,
  signal: NodeJS.Signals,
  output: () => string,
): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill(signal);
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), patient(30_000));
  });
  const outcome = await Promise.race([exited, hung]);
  clearTimeout(timer);
  if (outcome !== 'hung') return outcome;
  child.kill('SIGKILL');
  await exited;
  throw new Error(
    `npm start did not exit within ${patient(30_000)} ms of ${signal}:\n${output().slice(-2000)}`,
  );
}

/** `npm start` as a child process, and what it printed so far (stdout and stderr). */
export function spawnNpmStart(dataDir: string): { child: ChildProcess; output(): string } {
  const child = spawn(process.execPath, [START], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      EMULATOR_PORT: '0',
      SANDBOX_PORT: '0',
      DATA_DIR: dataDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  return { child, output: () => output };
}

export interface PageMessage {
  ts: string;
  thread_ts?: string;
  text?: string;
  blocks?: unknown[];
}

interface PageState {
  channels: Array<{ id: string; messages: PageMessage[] }>;
  ephemerals: Array<{ user: string; text?: string }>;
  views: Array<{ type: string; user: string; blocks?: unknown[] }>;
}

export const textOf = (m: PageMessage | undefined) =>
  m ? `${m.text ?? ''} ${JSON.stringify(m.blocks ?? [])}` : '';

/** The sandbox's page routes, as its browser page calls them. */
export function sandboxPage(sandboxUrl: string) {
  const state = async (): Promise<PageState> =>
    (await fetch(`${sandboxUrl}/sandbox/state`)).json() as Promise<PageState>;
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${sandboxUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await response.json()) as { ok: boolean; error?: string };
  };
  return {
    state,
    post,
    channel: async (id: string) => (await state()).channels.find((c) => c.id === id)?.messages ?? [],
    /** The blocks of `user`'s Home tab as the bot last published it, as text; '' before it publishes one. */
    home: async (user: string) => {
      const last = (await state()).views.filter((v) => v.type === 'home' && v.user === user).at(-1);
      return last ? JSON.stringify(last.blocks ?? []) : '';
    },
  };
}
