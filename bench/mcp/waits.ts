import { fork } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { SlackDriver } from '@agent-sessions/slack-sandbox';
import { percentile, round } from '../stats.js';
import type { Host } from './hosts.js';
import type { ProbeLine, ProbeReader } from './probe-reader.js';

type Phase = 'before' | 'opening' | 'holding';

/** A slash command's ack, as Slack times it: from sending it to the bot's HTTP answer. */
interface Ack {
  phase: Phase;
  ms: number;
  status: number;
}

export interface WaitTrial {
  loadAverage: number[];
  waits: number;
  /** What the bot said it held, asked by one more person (its refusal names the workspace's count). */
  openAtBot: number;
  openingSeconds: number;
  /** Waits that returned or failed while they should have been held (0 expected). */
  endedEarly: number;
  memory: {
    before: MemoryFigures;
    holding: MemoryFigures;
    rssGrowthMb: number;
    heapGrowthMb: number;
    peakRssGrowthMb: number;
  };
  eventLoop: Record<Phase, DelayFigures>;
  acks: Record<Phase, AckFigures>;
  /** The bot's own count over the trial (slack_request_ack_seconds): answered, and within 1 s. */
  botAcks: { answered: number; within1s: number };
  /** The first refusals or failures of waits that ended early, to say why. */
  failures: string[];
  /** When each phase began (wall clock, ms): to place it in a CPU profile of the bot. */
  marks: Record<string, number>;
}

/** The bot's histogram of its acks (its /metrics): how many it answered, and how many within 1 s. */
async function botAckCounts(metricsUrl: string): Promise<{ answered: number; within1s: number }> {
  const text = await fetch(metricsUrl)
    .then((r) => r.text())
    .catch(() => '');
  const answered = Number(/^slack_request_ack_seconds_count (\d+)/m.exec(text)?.[1] ?? 0);
  const within1s = Number(/^slack_request_ack_seconds_bucket\{le="1"\} (\d+)/m.exec(text)?.[1] ?? 0);
  return { answered, within1s };
}

interface MemoryFigures {
  rssMb: number;
  heapUsedMb: number;
}
interface DelayFigures {
  p99Ms: number;
  maxMs: number;
}
interface AckFigures {
  count: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  over1s: number;
}

const memoryOf = (l: ProbeLine): MemoryFigures => ({
  rssMb: round(l.rssMb),
  heapUsedMb: round(l.heapUsedMb),
});

const delayOf = (lines: ProbeLine[]): DelayFigures => ({
  p99Ms: round(Math.max(0, ...lines.map((l) => l.delayP99Ms))),
  maxMs: round(Math.max(0, ...lines.map((l) => l.delayMaxMs))),
});

function ackFigures(acks: Ack[]): AckFigures {
  const ms = acks.map((a) => a.ms);
  return {
    count: acks.length,
    p50Ms: percentile(ms, 50),
    p99Ms: percentile(ms, 99),
    maxMs: Math.max(0, ...ms),
    over1s: acks.filter((a) => a.ms > 1_000 || a.status !== 200).length,
  };
}

/**
 * The driver's line to the bot, moved into a process of its own (ack-sender.ts): the driver still builds
 * each request (its trigger, its response URL), the child signs, sends and times it. Its `ms` is the
 * child's, not this busy process's.
 */
function senderLine(driver: SlackDriver, eventsUrl: string, signingSecret: string) {
  const child = fork(fileURLToPath(new URL('./ack-sender.js', import.meta.url)), [], {
    env: { PATH: process.env.PATH ?? '', ACK_SENDER_URL: eventsUrl, ACK_SENDER_SECRET: signingSecret },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, (answer: { status: number; text: string; ms: number }) => void>();
  child.on('message', (answer: { id: number; status: number; text: string; ms: number }) => {
    pending.get(answer.id)?.(answer);
    pending.delete(answer.id);
  });
  let ids = 0;
  let lastMs = 0;
  // Instance-level: only this driver's requests go through the child.
  driver.send = (body, contentType) =>
    new Promise((resolve) => {
      const id = ++ids;
      pending.set(id, ({ status, text, ms }) => {
        lastMs = ms;
        let parsed: unknown = text;
        try {
          parsed = text === '' ? undefined : JSON.parse(text);
        } catch {
          // Not JSON: keep the text.
        }
        resolve({ status, body: parsed });
      });
      child.send({ id, body, contentType });
    });
  return { driver, lastMs: () => lastMs, close: () => child.disconnect() };
}

/** Slash commands (`/agent list` and `/agent status`, in turn) sent one after another until stopped. */
function ackProbe(line: ReturnType<typeof senderLine>, user: string, channel: string, phase: () => Phase) {
  const acks: Ack[] = [];
  let running = true;
  const done = (async () => {
    for (let i = 0; running; i++) {
      const at = phase();
      const status = await line.driver
        .command({ user, channel, text: i % 2 ? 'status' : 'list' })
        .then((reply) => reply.status)
        .catch(() => 0);
      acks.push({ phase: at, ms: Math.round(line.lastMs()), status });
      await sleep(200);
    }
  })();
  return {
    acks,
    stop: async () => {
      running = false;
      await done;
      line.close();
    },
  };
}

/** The count in the bot's refusal of one more wait ("This workspace has N calls open that wait"). */
async function openWaitsAtBot(extra: Host, sessionId: string): Promise<number> {
  try {
    await extra.call(
      'wait_for_session',
      { session_id: sessionId, timeout_seconds: 1 },
      { timeoutMs: 180_000 },
    );
    return 0;
  } catch (error) {
    // "This workspace has N calls open that wait (…)" (older builds: "has N wait_for_session calls open").
    const n = /has (\d+) (?:calls open that wait|wait_for_session calls open)/.exec(
      String((error as Error).message),
    )?.[1];
    if (n === undefined) throw error;
    return Number(n);
  }
}

export interface WaitSetup {
  hosts: Host[];
  /** A person with no wait open: asks the bot how many are open. */
  extra: Host;
  sessions: string[];
  perPerson: number;
  holdSeconds: number;
  driver: SlackDriver;
  /** The bot's Request URL and Slack's signing secret, for the ack sender's process. */
  eventsUrl: string;
  signingSecret: string;
  ackUser: string;
  channel: string;
  probe: ProbeReader;
  metricsUrl: string;
}

/**
 * One trial: the bot's memory and event-loop delay, and slash commands' acks, before and while
 * `hosts × perPerson` wait_for_session calls are held open (each on one of `sessions`, bounded well past
 * the hold), then the waits released (the hosts abort their calls, as a host that gives up does).
 */
export async function waitTrial(s: WaitSetup): Promise<WaitTrial> {
  const total = s.hosts.length * s.perPerson;
  let phase: Phase = 'before';
  const before = await s.probe.afterGc();
  const botBefore = await botAckCounts(s.metricsUrl);
  const failures: string[] = [];
  const acks = ackProbe(
    senderLine(s.driver, s.eventsUrl, s.signingSecret),
    s.ackUser,
    s.channel,
    () => phase,
  );
  const marks: Record<string, number> = { before: Date.now() };
  await sleep(s.holdSeconds * 500);
  marks.opening = Date.now();
  phase = 'opening';
  const abort = new AbortController();
  setMaxListeners(0, abort.signal); // every call listens to it
  let endedEarly = 0;
  const openWait = (host: Host, sessionId: string) => {
    const call = () =>
      host.call(
        'wait_for_session',
        { session_id: sessionId, timeout_seconds: s.holdSeconds * 10 },
        { signal: abort.signal, timeoutMs: s.holdSeconds * 12_000 },
      );
    // The probe's own one-second wait may hold the workspace's last slot as this call arrives: again,
    // until it gets in (once only, the last few waits raced the probe and often ended early).
    return (async () => {
      for (let tries = 1; ; tries++)
        try {
          return await call();
        } catch (error) {
          if (tries >= 60 || !/This workspace has/.test(String((error as Error).message))) throw error;
          await sleep(500 + Math.random() * 1_000);
        }
    })();
  };
  // Opened 100 at a time, a quarter of a second apart: all at once, they overflow the listen backlog of
  // the bot's port (511) and some connections fail before the bot sees them.
  const calls = s.hosts.flatMap((host, i) =>
    Array.from({ length: s.perPerson }, (_, k) =>
      sleep(Math.floor((i * s.perPerson + k) / 100) * 250)
        .then(() => openWait(host, s.sessions[(i * s.perPerson + k) % s.sessions.length] as string))
        .then(
          (returned) => {
            endedEarly += 1;
            if (failures.length < 5) failures.push(`returned: ${JSON.stringify(returned).slice(0, 200)}`);
          },
          (error: unknown) => {
            if (abort.signal.aborted) return;
            endedEarly += 1;
            if (failures.length < 5) failures.push(String((error as Error).message).slice(0, 300));
          },
        ),
    ),
  );
  let openAtBot = 0;
  const openUntil = Date.now() + 120_000;
  while (openAtBot < total && Date.now() < openUntil && endedEarly === 0) {
    openAtBot = await openWaitsAtBot(s.extra, s.sessions[0] as string);
    if (openAtBot < total) await sleep(250);
  }
  marks.holding = Date.now();
  phase = 'holding';
  await sleep(s.holdSeconds * 1000);
  const holding = await s.probe.afterGc();
  const held = s.probe.between(marks.holding, Date.now());
  marks.end = Date.now();
  await acks.stop();
  const botAfter = await botAckCounts(s.metricsUrl);
  abort.abort();
  await Promise.all(calls);
  const baseline = s.probe.between(marks.before as number, marks.opening as number);
  const result: WaitTrial = {
    loadAverage: loadavg().map((l) => round(l, 2)),
    waits: total,
    openAtBot,
    openingSeconds: round(((marks.holding as number) - (marks.opening as number)) / 1000),
    endedEarly,
    memory: {
      before: memoryOf(before),
      holding: memoryOf(holding),
      rssGrowthMb: round(holding.rssMb - before.rssMb),
      heapGrowthMb: round(holding.heapUsedMb - before.heapUsedMb),
      peakRssGrowthMb: round(Math.max(...held.map((l) => l.rssMb), holding.rssMb) - before.rssMb),
    },
    eventLoop: {
      before: delayOf(baseline),
      opening: delayOf(s.probe.between(marks.opening as number, marks.holding as number)),
      holding: delayOf(held),
    },
    acks: {
      before: ackFigures(acks.acks.filter((a) => a.phase === 'before')),
      opening: ackFigures(acks.acks.filter((a) => a.phase === 'opening')),
      holding: ackFigures(acks.acks.filter((a) => a.phase === 'holding')),
    },
    botAcks: {
      answered: botAfter.answered - botBefore.answered,
      within1s: botAfter.within1s - botBefore.within1s,
    },
    failures,
    marks,
  };
  return result;
}
