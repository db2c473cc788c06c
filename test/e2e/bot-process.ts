import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../packages/slack-bot/dist/main.js', import.meta.url));

export interface BotProcess {
  child: ChildProcess;
  eventsUrl: string;
  /** Everything the process wrote (its JSON log lines), for the secrets check. */
  output: string[];
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** The bot as production runs it: `node dist/main.js` configured by its environment. */
export function spawnBot(env: Record<string, string>, output: string[] = []): Promise<BotProcess> {
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let buffered = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the bot did not start within 20 s:\n${buffered.slice(-2000)}`));
    }, 20_000);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      buffered += text;
      output.push(...text.split('\n').filter(Boolean));
      const url = /Slack request URL: (\S+)/.exec(buffered)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({
          child,
          eventsUrl: url,
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
