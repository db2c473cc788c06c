/**
 * Ack benchmark: how long the bot takes to acknowledge what Slack sends it, on a busy machine. Slack
 * gives an app 3 seconds; past them the person sees a timeout and an event is sent again.
 *
 *   npm run bench:acks -- [--ops 240] [--concurrency 6] [--burners 2]
 *
 * The bot runs as production runs it (`node dist/main.js`, HTTP mode) against the Slack sandbox and the
 * emulator, with `--burners` CPU-bound processes beside it (as `npm run test:busy` runs them). A mixed
 * load of `--ops` requests, each signed as Slack signs it, is sent `--concurrency` at a time:
 *   - slash commands: `/agent start …` (a session with a question), `/agent list`, `/agent status`;
 *   - button clicks: Approve under the questions those sessions ask;
 *   - view submissions: the start form (`/agent start` alone opens it), filled in and submitted;
 *   - events: mentions of the bot in a channel (`app_mention` and its `message`).
 * An ack's time is from sending the request to the bot's HTTP answer. Prints p50/p99/max per kind and
 * overall, the bot's own "not acknowledged within 3 seconds" lines, and writes bench/results/acks.json.
 * Target: every ack under 3 s, p99 under 1 s.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { spawnEmulator } from '@agent-sessions/emulator/testing';
import {
  defaultSeed,
  type SandboxMessage,
  type SlackDriver,
  startSandbox,
} from '@agent-sessions/slack-sandbox';
import { type Bot, botEnv, spawnBot } from '../bot.js';
import { wholeAbove0, writeResult } from '../cli.js';
import { median, percentile, round } from '../stats.js';

const { values } = parseArgs({
  options: {
    ops: { type: 'string', default: '240' },
    concurrency: { type: 'string', default: '6' },
    burners: { type: 'string', default: '2' },
    out: { type: 'string', default: 'bench/results/acks.json' },
  },
});
const OPS = wholeAbove0('ops', values.ops);
const CONCURRENCY = wholeAbove0('concurrency', values.concurrency);
const BURNERS = Number(values.burners);
if (!(Number.isInteger(BURNERS) && BURNERS >= 0))
  throw new Error(`--burners must be a whole number, 0 or more, got "${values.burners}"`);

const KEY = 'bench_acks_key';
const CHANNEL = 'C0AGENTS';
const STARTER = 'U0ALICE';
const ACK_LIMIT_MS = 3_000;
const P99_TARGET_MS = 1_000;
const log = (line: string) => process.stdout.write(`${line}\n`);

type Kind = 'command' | 'click' | 'submission' | 'event';
interface Ack {
  kind: Kind;
  what: string;
  ms: number;
  status: number | 'timeout';
}

/** Spins one core until killed, as scripts/test-busy.mjs does. */
const burn = (): ChildProcess => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });

const hasApprove = (m: SandboxMessage) =>
  JSON.stringify(m.blocks ?? []).includes('"action_id":"input_approve"');

/** Questions waiting for a click, in the order they appeared (each clicked once). */
class Prompts {
  readonly #waiting: SandboxMessage[] = [];
  readonly #seen = new Set<string>();
  #wake: (() => void) | undefined;

  see(m: SandboxMessage): void {
    if (m.channel !== CHANNEL || this.#seen.has(m.ts) || !hasApprove(m)) return;
    this.#seen.add(m.ts);
    this.#waiting.push(m);
    this.#wake?.();
  }

  /** The next unanswered question, or undefined when none comes within `ms`. */
  async next(ms: number): Promise<SandboxMessage | undefined> {
    const until = Date.now() + ms;
    while (this.#waiting.length === 0 && Date.now() < until) {
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        setTimeout(resolve, Math.max(0, until - Date.now()));
      });
    }
    return this.#waiting.shift();
  }
}

const timed = async <T extends { status: number }>(
  kind: Kind,
  what: string,
  send: () => Promise<T>,
): Promise<{ ack: Ack; response: T }> => {
  const started = performance.now();
  const response = await send();
  return {
    ack: { kind, what, ms: Math.round(performance.now() - started), status: response.status },
    response,
  };
};

/** One of the mix, chosen by its index: commands, clicks, form submissions and mentions, interleaved. */
async function operation(i: number, driver: SlackDriver, prompts: Prompts, forms: FormLane): Promise<Ack[]> {
  switch (i % 8) {
    case 0:
    case 4:
      return [
        (
          await timed('command', '/agent start', () =>
            driver.command({
              user: STARTER,
              channel: CHANNEL,
              text: `start scenario:approval acks bench #${i}`,
            }),
          )
        ).ack,
      ];
    case 1:
      return [
        (
          await timed('command', '/agent list', () =>
            driver.command({ user: STARTER, channel: CHANNEL, text: 'list' }),
          )
        ).ack,
      ];
    case 5:
      return [
        (
          await timed('command', '/agent status', () =>
            driver.command({ user: STARTER, channel: CHANNEL, text: 'status' }),
          )
        ).ack,
      ];
    case 2:
    case 6: {
      const prompt = await prompts.next(20_000);
      if (!prompt) return [];
      const clicked = await timed('click', 'Approve', () =>
        driver.act({ user: STARTER, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' }),
      );
      return [clicked.ack];
    }
    case 3:
      return forms.submit(i);
    default: {
      const said = await driver.mention({
        user: STARTER,
        channel: CHANNEL,
        text: `how are things going? #${i}`,
      });
      return said.events.flatMap((e) =>
        e.deliveries.map((d) => ({ kind: 'event' as const, what: e.type, ms: d.ms, status: d.status })),
      );
    }
  }
}

/** The start form, one person at a time (a person has one modal open): opened, then submitted. */
class FormLane {
  #queue: Promise<unknown> = Promise.resolve();
  constructor(
    private readonly driver: SlackDriver,
    private readonly openModal: () => { id: string } | undefined,
  ) {}

  submit(i: number): Promise<Ack[]> {
    const run = this.#queue.then(() => this.#submit(i));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #submit(i: number): Promise<Ack[]> {
    const opened = await timed('command', '/agent start (form)', () =>
      this.driver.command({ user: 'U0BOB', channel: CHANNEL, text: 'start' }),
    );
    const until = Date.now() + 20_000;
    let modal = this.openModal();
    while (!modal && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      modal = this.openModal();
    }
    if (!modal) return [opened.ack];
    const submitted = await timed('submission', 'start form', () =>
      this.driver.submitView({
        user: 'U0BOB',
        viewId: (modal as { id: string }).id,
        values: { goal: { value: `scenario:approval acks bench form #${i}` } },
      }),
    );
    return [opened.ack, submitted.ack];
  }
}

/**
 * The bot's side, from its /metrics: each request from arrival to answer, without the time the request
 * spent reaching it (and without this process's own delays in timing it).
 */
async function botAckFigures(eventsUrl: string) {
  const text = await fetch(eventsUrl.replace(/\/slack\/events$/, '/metrics'))
    .then((r) => r.text())
    .catch(() => '');
  const bucket = (le: string) =>
    Number(
      new RegExp(`^slack_request_ack_seconds_bucket\\{le="${le}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? NaN,
    );
  const count = Number(/^slack_request_ack_seconds_count (\d+)/m.exec(text)?.[1] ?? NaN);
  if (!Number.isFinite(count)) return undefined;
  return { count, within1s: bucket('1'), within3s: bucket('3') };
}

function summary(acks: Ack[]) {
  const ms = acks.map((a) => a.ms);
  return {
    count: acks.length,
    p50Ms: median(ms),
    p99Ms: percentile(ms, 99),
    maxMs: ms.length ? Math.max(...ms) : 0,
    over3s: acks.filter((a) => a.ms >= ACK_LIMIT_MS || a.status === 'timeout').length,
    notOk: acks.filter((a) => a.status !== 200).length,
  };
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'bench-acks-'));
  const emulator = await spawnEmulator({ apiKeys: [KEY], quirks: '' });
  const sandbox = await startSandbox({ seed: defaultSeed(), triggerTtlMs: 60_000 });
  const prompts = new Prompts();
  sandbox.workspace.on('change', (change) => {
    if (change.kind === 'message' || change.kind === 'message_changed') prompts.see(change.message);
  });
  let bot: Bot | undefined;
  const burners: ChildProcess[] = [];
  const unacked: string[] = [];
  try {
    bot = await spawnBot({
      ...botEnv(sandbox, emulator.url, KEY),
      DATA_DIR: join(root, 'bot'),
      LOG_LEVEL: 'warn',
    });
    const onData = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n'))
        if (/not acknowledged within 3 seconds/.test(line)) unacked.push(line);
    };
    bot.child.stdout?.on('data', onData);
    bot.child.stderr?.on('data', onData);
    for (let b = 0; b < BURNERS; b++) burners.push(burn());
    const loadAtStart = loadavg().map((l) => round(l, 2));
    log(
      `ack benchmark: ${OPS} requests, ${CONCURRENCY} at a time, ${burners.length} CPU-bound processes beside the bot on ${availableParallelism()} cores (load ${loadAtStart.join(' ')})`,
    );
    const driver = sandbox.driver(bot.eventsUrl);
    const forms = new FormLane(driver, () => {
      const view = sandbox.driver(bot?.eventsUrl ?? '').openModal('U0BOB');
      return view && !view.closed ? view : undefined;
    });
    const acks: Ack[] = [];
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < OPS) {
          const i = next++;
          acks.push(...(await operation(i, driver, prompts, forms)));
        }
      }),
    );
    const wallS = round((performance.now() - t0) / 1000);
    const botSide = await botAckFigures(bot.eventsUrl);
    const kinds: Kind[] = ['command', 'click', 'submission', 'event'];
    const byKind = Object.fromEntries(kinds.map((k) => [k, summary(acks.filter((a) => a.kind === k))]));
    const overall = summary(acks);
    const met = overall.over3s === 0 && overall.p99Ms < P99_TARGET_MS && unacked.length === 0;
    log(
      `\n${'kind'.padEnd(12)}${'count'.padStart(7)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'max ms'.padStart(9)}${'≥3 s'.padStart(6)}`,
    );
    for (const [name, s] of [...Object.entries(byKind), ['all', overall] as const])
      log(
        `${name.padEnd(12)}${String(s.count).padStart(7)}${String(s.p50Ms).padStart(9)}${String(s.p99Ms).padStart(9)}${String(s.maxMs).padStart(9)}${String(s.over3s).padStart(6)}`,
      );
    log(`\nthe bot logged "not acknowledged within 3 seconds" ${unacked.length} times; ${wallS} s in all`);
    if (botSide)
      log(
        `the bot's own count (slack_request_ack_seconds): ${botSide.count} answered, ${botSide.within1s} within 1 s, ${botSide.within3s} within 3 s`,
      );
    log(`target (every ack < 3 s, p99 < 1 s): ${met ? 'met' : 'NOT met'}`);
    writeResult(values.out as string, {
      measuredAt: new Date().toISOString(),
      node: process.version,
      cores: availableParallelism(),
      burners: burners.length,
      loadAverageAtStart: loadAtStart,
      loadAverageAtEnd: loadavg().map((l) => round(l, 2)),
      ops: OPS,
      concurrency: CONCURRENCY,
      target: 'every ack under 3 s and p99 under 1 s, with two CPU-bound processes beside the bot',
      met,
      overall,
      byKind,
      botUnackedLines: unacked.length,
      botSide,
      wallSeconds: wallS,
    });
    log(`wrote ${values.out}`);
  } finally {
    for (const b of burners) b.kill('SIGKILL');
    await bot?.stop();
    await sandbox.close();
    await emulator.close();
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
