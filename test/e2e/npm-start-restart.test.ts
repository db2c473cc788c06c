import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { patient } from '../support/patience.js';
import { type NpmStart, sandboxPage, spawnNpmStart, startNpmStart, textOf } from './npm-start-process.js';

// `npm start`, Ctrl-C, `npm start` again on the same data folder, as a person trying it does. The sandbox,
// the emulator and the secrets are made anew at each start, so the bot's store for them is too: nothing of
// the first start's world may come back as an error, a warning about it, or a session no one can open.

const ALICE = 'U0ALICE';
const CHANNEL = 'C0AGENTS';
/** What the bot logs when it meets an earlier start's world: tokens, sessions, threads and cards gone. */
const EARLIER_WORLD =
  /InstallationUnreadable|no configured encryption key|install the app in these workspaces again|not found|thread_not_found|message_not_found|channel_not_found/;

interface LogLine {
  level: number;
  msg?: string;
  [key: string]: unknown;
}

const dataDir = mkdtempSync(join(tmpdir(), 'agent-sessions-restart-'));
const running: NpmStart[] = [];

afterAll(async () => {
  for (const start of running) await start.stop('SIGTERM').catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
});

/** A session started as Alice in #agents, waited for until its approval question is posted. */
async function sessionToQuestion(start: NpmStart, goal: string): Promise<void> {
  const page = sandboxPage(start.sandboxUrl);
  expect(
    await page.post('/sandbox/command', { user: ALICE, channel: CHANNEL, text: `start ${goal}` }),
  ).toMatchObject({ ok: true });
  await expect
    .poll(async () => (await page.channel(CHANNEL)).some((m) => textOf(m).includes('input_approve')), {
      timeout: patient(30_000),
    })
    .toBe(true);
}

/** Alice opens the App Home tab; resolves with what the bot published there once it lists `goal`'s session. */
async function homeListing(start: NpmStart, goal: string): Promise<string> {
  const page = sandboxPage(start.sandboxUrl);
  expect(await page.post('/sandbox/home', { user: ALICE })).toMatchObject({ ok: true });
  let home = '';
  await expect
    .poll(
      async () => {
        home = await page.home(ALICE);
        return home;
      },
      { timeout: patient(20_000) },
    )
    .toContain(goal);
  return home;
}

describe('npm start, stopped with Ctrl-C and started again on the same data folder', () => {
  // Two starts, two sessions, two Home tabs and two stops, each wait bounded on its own: the project's 60 s
  // is for one of them, and a busy machine (CI's coverage stage) spent more than that on all of them.
  it(
    'starts a fresh world and says so: no error, no warning about the last one, no ghost session',
    async () => {
      // DATA_DIR's own files (a real Slack's store would be here) are not the sandbox's: never touched.
      writeFileSync(join(dataDir, 'keep.txt'), 'not the sandbox’s');
      const first = await startNpmStart(dataDir);
      running.push(first);
      await sessionToQuestion(first, 'scenario:approval before the restart');
      await homeListing(first, 'before the restart');
      expect(await first.stop('SIGINT')).toBe(0);

      const second = await startNpmStart(dataDir);
      running.push(second);
      expect(second.output()).toContain(
        `Store: PGlite in ${join(dataDir, 'sandbox', 'store')}, new at each start as the sandbox's workspace is`,
      );
      await sessionToQuestion(second, 'scenario:approval after the restart');
      // The Home tab lists this start's session and not the last one's, whose card is gone with its sandbox.
      expect(await homeListing(second, 'after the restart')).not.toContain('before the restart');
      // The channel has this start's card only.
      const cards = (await sandboxPage(second.sandboxUrl).channel(CHANNEL)).filter((m) => !m.thread_ts);
      expect(cards.map(textOf).filter((text) => text.includes('before the restart'))).toEqual([]);
      expect(await second.stop('SIGINT')).toBe(0);
      expect(readFileSync(join(dataDir, 'keep.txt'), 'utf8')).toBe('not the sandbox’s');

      // The bot's log of both starts, the restart in the middle.
      const lines = readFileSync(join(dataDir, 'bot.log'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as LogLine);
      expect(lines.filter((l) => l.msg === 'agent sessions bot started')).toHaveLength(2);
      expect(lines.filter((l) => l.msg === 'agent sessions bot stopped')).toHaveLength(2);
      expect(lines.filter((l) => l.level >= 50)).toEqual([]);
      expect(lines.filter((l) => l.level >= 40 && EARLIER_WORLD.test(JSON.stringify(l)))).toEqual([]);
    },
    patient(180_000),
  );

  it('refuses a sandbox folder in DATA_DIR that it did not make, and leaves it as it was', async () => {
    const other = mkdtempSync(join(tmpdir(), 'agent-sessions-restart-'));
    try {
      mkdirSync(join(other, 'sandbox'));
      writeFileSync(join(other, 'sandbox', 'precious.txt'), 'someone’s');
      const { child, output } = spawnNpmStart(other);
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).toBe(2);
      expect(output()).toContain(`${join(other, 'sandbox')} holds files npm start did not make`);
      expect(readFileSync(join(other, 'sandbox', 'precious.txt'), 'utf8')).toBe('someone’s');
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
