/**
 * Scale benchmark: N sessions of the emulator's `complete` scenario started at once across C
 * channels, through the Slack sandbox at Slack's own limits, with the real bot as one or more processes
 * (several replicas share one PostgreSQL), on each surface in turn in the same run: `classic` (the card
 * and its thread) and `auto` (the default: Slack's agent sessions and streams, chatter posted the classic
 * way while stream starts, Tier 2, are spent). Measured from the moment the N `/agent start`s were typed:
 *   - outcome in thread: the session's report posted in its thread;
 *   - card final: the session's card edited to its final state;
 *   - the floors Slack's limits imply for both (./floors.ts), and the ratios to them;
 *   - posts, updates and all calls answered 429; each bot's CPU time and peak RSS;
 *   - lost / duplicated: every agent message in its thread exactly once, one report per session.
 * Prints a line per run and writes bench/results/scale.json.
 *
 *   npm run bench:scale -- [--n 50,200] [--surfaces classic,auto] [--channels 5] [--replicas 1] [--deadline 900]
 *     [--database-url postgres://postgres@127.0.0.1:5432/test]   (needed with --replicas 2 or more)
 *     [--latency 80-400]   (ms each way between the bots and Slack: a Slack that answers as the real one)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { AgentSessionsClient } from '@agent-sessions/core';
import { type SpawnedEmulator, spawnEmulator } from '@agent-sessions/emulator/testing';
import { defaultSeed, startSandbox } from '@agent-sessions/slack-sandbox';
import { type Bot, botEnv, spawnBot } from '../bot.js';
import { wholeAbove0, writeResult } from '../cli.js';
import { latencyOption, latencyProxy } from '../latency.js';
import { needleOf, occurrences, visibleText } from '../slack/match.js';
import { percentile, round } from '../stats.js';
import { floorsOf } from './floors.js';
import { type ProcessUse, sampleProcess } from './process.js';
import { scratchDatabase } from './scratch-database.js';
import { goalOf, keysOf, type Tracked, watch } from './watch.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '50,200' },
    surfaces: { type: 'string', default: 'classic,auto' },
    channels: { type: 'string', default: '5' },
    replicas: { type: 'string', default: '1' },
    deadline: { type: 'string', default: '900' },
    'database-url': { type: 'string', default: process.env.TEST_DATABASE_URL ?? '' },
    latency: { type: 'string', default: '0' },
    out: { type: 'string', default: 'bench/results/scale.json' },
  },
});
const NS = (values.n as string).split(',').map((n) => wholeAbove0('n', n.trim()));
const SURFACES = (values.surfaces as string).split(',').map((surface) => {
  const trimmed = surface.trim();
  if (trimmed !== 'classic' && trimmed !== 'auto' && trimmed !== 'agent')
    throw new Error(`--surfaces takes classic, auto and agent, got "${trimmed}"`);
  return trimmed;
});
const CHANNELS = wholeAbove0('channels', values.channels);
const REPLICAS = wholeAbove0('replicas', values.replicas);
const DEADLINE_MS = wholeAbove0('deadline', values.deadline) * 1000;
const DATABASE_URL = values['database-url'] as string;
const LATENCY = latencyOption(values.latency);
if (REPLICAS > 1 && !DATABASE_URL)
  throw new Error(
    '--replicas above 1 needs --database-url (or TEST_DATABASE_URL): replicas share PostgreSQL',
  );
const KEY = 'bench_scale_key';
const USER = 'U0ALICE';
const log = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const s = (ms: number | undefined) => (ms === undefined ? '—' : `${round(ms / 1000)} s`);

async function run(
  n: number,
  surface: string,
  emulator: SpawnedEmulator,
  client: AgentSessionsClient,
  root: string,
) {
  const emulatorUrl = emulator.url;
  const seed = defaultSeed();
  const channels = Array.from({ length: CHANNELS }, (_, i) => `C0SCALE${i}`);
  for (const [i, id] of channels.entries())
    seed.channels.push({ id, name: `scale-${i}`, is_private: false, is_im: false, is_member: true });
  // Everyone is in every channel: a person starts sessions only where they are a member.
  seed.channelMembers = {
    ...seed.channelMembers,
    ...Object.fromEntries(channels.map((id) => [id, seed.users.map((u) => u.id)])),
  };
  // `{}`: Slack's own figures whatever SANDBOX_RATE_* says; at Slack's limits is the point.
  const sandbox = await startSandbox({ seed, rateLimits: {}, triggerTtlMs: 60_000 });
  const limits = sandbox.rateLimiter?.config;
  if (!limits) throw new Error('the sandbox runs without rate limits');
  const tracked: Tracked[] = Array.from({ length: n }, (_, i) => ({
    index: i,
    goal: goalOf(n, i),
    channel: channels[i % CHANNELS] as string,
    edits: [],
  }));
  const calls = watch(sandbox, tracked);
  const database = REPLICAS > 1 ? scratchDatabase(DATABASE_URL, 'bench_scale') : undefined;
  await database?.create();
  const bots: Bot[] = [];
  const samplers: Array<{ stop: () => ProcessUse }> = [];
  const proxy = LATENCY.max > 0 ? await latencyProxy(sandbox.apiUrl, LATENCY) : undefined;
  try {
    for (let r = 0; r < REPLICAS; r++) {
      const bot = await spawnBot({
        ...botEnv(sandbox, emulatorUrl, KEY),
        ...(proxy ? { SLACK_API_URL: proxy.url } : {}),
        LOG_LEVEL: process.env.BENCH_BOT_LOG_LEVEL ?? 'warn',
        AGENT_SLACK_SURFACE: surface,
        ...(database
          ? { DATABASE_URL: database.url, REPLICA_ID: `replica-${r}` }
          : { DATA_DIR: join(root, `n${n}-${surface}`) }),
      });
      bots.push(bot);
      samplers.push(sampleProcess(bot.child.pid as number));
    }
    const t0 = Date.now();
    const started = await Promise.allSettled(
      tracked.map((t) =>
        sandbox.driver((bots[t.index % bots.length] as Bot).eventsUrl).command({
          user: USER,
          channel: t.channel,
          text: `start scenario:complete ${t.goal}`,
        }),
      ),
    );
    const refused = started.filter((r) => r.status === 'rejected' || r.value.status !== 200).length;
    log(
      `  N = ${n}, ${surface}: ${n} starts typed across ${CHANNELS} channels (${Date.now() - t0} ms, ${refused} refused)`,
    );
    let lastLog = Date.now();
    const done = () => tracked.every((t) => t.reportAt !== undefined && t.finalAt !== undefined);
    while (!done() && Date.now() - t0 < DEADLINE_MS) {
      await sleep(500);
      if (Date.now() - lastLog >= 15_000) {
        lastLog = Date.now();
        const count = (f: (t: Tracked) => unknown) => tracked.filter(f).length;
        log(
          `  ${Math.round((Date.now() - t0) / 1000)} s: ${count((t) => t.cardTs)} cards, ${count((t) => t.reportAt)} reports, ${count((t) => t.finalAt)} final cards; ${calls.ratelimited}/${calls.total} calls 429`,
        );
      }
    }
    const end = Date.now();
    // A moment for anything still in flight (a duplicate would show now).
    await sleep(2_000);
    const use = samplers.map((sampler) => sampler.stop());
    const check = await lostAndDuplicated(sandbox, tracked, emulator, client);
    const waits = (f: (t: Tracked) => number | undefined) => {
      const list = tracked.map((t) => f(t));
      const shown = list.filter((v): v is number => v !== undefined).map((v) => v - t0);
      const censored = list.length - shown.length;
      const all = [...shown, ...Array.from({ length: censored }, () => end - t0)];
      return { p50Ms: percentile(all, 50), p95Ms: percentile(all, 95), maxMs: Math.max(0, ...all), censored };
    };
    const outcome = waits((t) => t.reportAt);
    const cardFinal = waits((t) => t.finalAt);
    // When the service finished each session: its last event.
    const doneAt = new Map<string, number>();
    for (const e of await emulator.admin.events())
      doneAt.set(e.sessionId, Math.max(doneAt.get(e.sessionId) ?? 0, e.at));
    const floors = floorsOf(
      { postPerChannel: limits.postPerChannel, postWorkspace: limits.postWorkspace, update: limits.tiers[3] },
      channels.map((c) => ({
        sessions: tracked.filter((t) => t.channel === c).length,
        posts: calls.postsByChannel.get(c) ?? 0,
      })),
      [...doneAt.values()].map((at) => at - t0),
    );
    const method = (name: string) => calls.byMethod.get(name) ?? { total: 0, ratelimited: 0 };
    const result = {
      n,
      surface,
      channels: CHANNELS,
      replicas: REPLICAS,
      latencyMs: LATENCY,
      outcome,
      cardFinal,
      floors,
      ratios: {
        outcomeP95: round(outcome.p95Ms / floors.outcomeP95Ms, 2),
        cardFinalP95: round(cardFinal.p95Ms / floors.cardFinalP95Ms, 2),
      },
      posts: method('chat.postMessage'),
      updates: method('chat.update'),
      streams: {
        started: method('chat.startStream').total,
        appends: method('chat.appendStream').total,
        stopped: method('chat.stopStream').total,
      },
      postsPerChannel: Object.fromEntries(calls.postsByChannel),
      calls: {
        total: calls.total,
        ratelimited: calls.ratelimited,
        ratelimitedPercent: round((100 * calls.ratelimited) / Math.max(1, calls.total), 2),
        byMethod: Object.fromEntries(calls.byMethod),
      },
      ...check,
      bots: use,
      timeline: process.env.BENCH_SCALE_TIMELINE
        ? tracked.map((t) => ({
            card: t.cardAt && t.cardAt - t0,
            report: t.reportAt && t.reportAt - t0,
            final: t.finalAt && t.finalAt - t0,
            edits: t.edits.map((e) => `${e.at - t0} ${e.text}`),
          }))
        : undefined,
    };
    log(
      `  N = ${n}, ${surface}: outcome p50/p95 ${s(outcome.p50Ms)} / ${s(outcome.p95Ms)} (floor ${s(floors.outcomeP50Ms)} / ${s(floors.outcomeP95Ms)}, ×${result.ratios.outcomeP95}); card final ${s(cardFinal.p50Ms)} / ${s(cardFinal.p95Ms)} (floor ${s(floors.cardFinalP50Ms)} / ${s(floors.cardFinalP95Ms)}, ×${result.ratios.cardFinalP95})`,
    );
    log(
      `           ${result.posts.total} posts, ${result.updates.total} updates, streams ${result.streams.started} started / ${result.streams.appends} appends / ${result.streams.stopped} stopped, ${calls.ratelimited}/${calls.total} calls 429 (${result.calls.ratelimitedPercent} %); lost ${check.lost}, duplicated ${check.duplicated}, reports ${check.reports}/${n}; ${use.map((u, i) => `bot ${i}: CPU ${u.cpuSeconds} s, RSS peak ${u.peakRssMb} MB`).join('; ')}`,
    );
    return result;
  } catch (error) {
    for (const bot of bots) log(bot.tail());
    throw error;
  } finally {
    await Promise.all(bots.map((b) => b.stop()));
    await proxy?.close();
    await sandbox.close();
    await database?.drop();
    await emulator.admin.reset().catch(() => {});
  }
}

/** Each agent message in its thread exactly once (by content), and one report per session. */
async function lostAndDuplicated(
  sandbox: Awaited<ReturnType<typeof startSandbox>>,
  tracked: Tracked[],
  emulator: SpawnedEmulator,
  client: AgentSessionsClient,
) {
  const sessions = new Map<string, string>();
  for (const x of await emulator.admin.sessions()) sessions.set(x.goal, x.sessionId);
  let lost = 0;
  let duplicated = 0;
  let reports = 0;
  let messages = 0;
  const examples: Array<{ session: number; needle: string; want: number; seen: number }> = [];
  for (const t of tracked) {
    const sessionId = [...sessions].find(([goal]) => goal.endsWith(t.goal))?.[1];
    const replies = t.cardTs ? sandbox.workspace.replies(t.channel, t.cardTs) : [];
    const reportsHere = replies.filter((m) => keysOf(m).includes('final-report')).length;
    reports += Math.min(1, reportsHere);
    duplicated += Math.max(0, reportsHere - 1);
    if (!sessionId) {
      lost += 1;
      continue;
    }
    const text = replies.map((m) => visibleText(m)).join('\n');
    const needles = new Map<string, number>();
    for await (const { message } of client.sessions.listMessages(sessionId, { pageSize: 200 })) {
      const needle = needleOf(message);
      if (needle) needles.set(needle, (needles.get(needle) ?? 0) + 1);
    }
    for (const [needle, want] of needles) {
      messages += want;
      const seen = occurrences(text, needle);
      lost += Math.max(0, want - seen);
      duplicated += Math.max(0, seen - want);
      if (seen !== want && examples.length < 10) examples.push({ session: t.index, needle, want, seen });
    }
  }
  return { messages, lost: lost + (tracked.length - reports), duplicated, reports, examples };
}

async function main(): Promise<void> {
  const load = loadavg().map((l) => round(l, 2));
  log(
    `Scale benchmark: N = ${NS.join(', ')} \`complete\` sessions at once across ${CHANNELS} channels, surfaces ${SURFACES.join(' and ')}, ${REPLICAS} bot replica(s), at Slack's limits; load ${load.join(' ')}`,
  );
  const emulator = await spawnEmulator({ apiKeys: [KEY], speed: 1, quirks: '' });
  const client = new AgentSessionsClient({ baseUrl: emulator.url, apiKey: KEY });
  const root = mkdtempSync(join(tmpdir(), 'bench-scale-'));
  const runs = [];
  try {
    for (const n of NS)
      for (const surface of SURFACES) runs.push(await run(n, surface, emulator, client, root));
  } finally {
    await client.close();
    await emulator.close();
    rmSync(root, { recursive: true, force: true });
  }
  const result = {
    measuredAt: new Date().toISOString(),
    node: process.version,
    loadAverageAtStart: load,
    loadAverageAtEnd: loadavg().map((l) => round(l, 2)),
    scenario: 'complete',
    target: 'outcome and card-final p95 ≤ 1.25× their floors; 0 lost, 0 duplicated; ≤ 1 % of calls 429',
    runs,
  };
  writeResult(values.out as string, result);
  log(`load average at the end: ${result.loadAverageAtEnd.join(' ')}`);
  log(`wrote ${values.out}`);
}

await main();
