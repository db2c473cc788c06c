/**
 * MCP benchmark: what the bot's /mcp costs a host, and what open waits cost the bot.
 *
 *   npm run bench:mcp -- [--people 200] [--waits-per-person 5] [--sessions 20] [--hold 20] [--trials 3]
 *                        [--latencies 0,20] [--calls 200] [--rounds 15]
 *                        [--store pglite|postgres] [--database-url postgres://…] [--bot <dist/main.js>]
 *
 * The bot runs as production runs it (`node dist/main.js`) against the Slack sandbox and the emulator;
 * the hosts are the official SDK's Client over Streamable HTTP, each with a personal token of its own
 * person (minted into the bot's store before it starts, as `npm start` mints Alice's).
 *
 * 1. Overhead: `get_session` through MCP against core's client `sessions.get` on the same session of the
 *    same emulator, taking turns in rounds, at each service latency of `--latencies` (ms added to every
 *    service request by the emulator: 0 is the bare overhead, 20 a nearby hosted service). Target: MCP at
 *    most 1.2× the direct call.
 * 2. Open waits: `--people` × `--waits-per-person` wait_for_session calls held at once (1,000 by default)
 *    on `--sessions` long-running sessions. The bot caps open waits at 5 per person (its default) and 100
 *    per workspace: the bench raises the workspace's (MCP_WAITS_PER_WORKSPACE) to the total, and uses 200
 *    people with 5 each. A probe loaded into the bot (probe.ts) reports its RSS, heap (after a full
 *    collection) and event-loop delay; slash commands built by the sandbox's driver and sent, signed and
 *    timed by a process of its own (ack-sender.ts, so the bench's own stalls are not timed) meanwhile time
 *    Slack's acks, beside the bot's own count. Target: at most 100 MB more, and no ack over 1 s while they
 *    wait. Repeated `--trials` times. BENCH_PROBE_PROFILE=<file>: a CPU profile of the bot (each trial's
 *    phase marks are in the result, wall clock, and the profile's `startedAt` places them).
 * The store: PGlite in the bot's data folder (as `npm start`), or with `--store postgres` a database of
 * its own made on the server `--database-url` (or TEST_DATABASE_URL) names and dropped after, so the
 * store's reads leave the bot's thread. `--bot` runs another build's `dist/main.js` (a copy of an earlier
 * commit's build, for before and after on one machine). Writes bench/results/mcp.json.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { AgentSessionsClient } from '@agent-sessions/core';
import { spawnEmulator } from '@agent-sessions/emulator/testing';
import { mintMcpToken, openStore } from '@agent-sessions/slack-bot';
import { defaultSeed, startSandbox, type WorkspaceSeed } from '@agent-sessions/slack-sandbox';
import { type Bot, botEnv, spawnBot } from '../bot.js';
import { wholeAbove0, writeResult } from '../cli.js';
import { scratchDatabase } from '../scale/scratch-database.js';
import { median, round } from '../stats.js';
import { connectHost, type Host } from './hosts.js';
import { measureOverhead, type OverheadFigures } from './overhead.js';
import { ProbeReader } from './probe-reader.js';
import { type WaitTrial, waitTrial } from './waits.js';

const { values } = parseArgs({
  options: {
    people: { type: 'string', default: '200' },
    'waits-per-person': { type: 'string', default: '5' },
    sessions: { type: 'string', default: '20' },
    hold: { type: 'string', default: '20' },
    trials: { type: 'string', default: '3' },
    latencies: { type: 'string', default: '0,20' },
    calls: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '11' },
    out: { type: 'string', default: 'bench/results/mcp.json' },
    store: { type: 'string', default: 'pglite' },
    'database-url': { type: 'string', default: process.env.TEST_DATABASE_URL ?? '' },
    bot: { type: 'string' },
  },
});
const STORE = values.store as string;
if (STORE !== 'pglite' && STORE !== 'postgres')
  throw new Error(`--store is pglite or postgres, got "${STORE}"`);
const DATABASE_URL = values['database-url'] as string;
if (STORE === 'postgres' && !DATABASE_URL)
  throw new Error(
    '--store postgres needs --database-url (or TEST_DATABASE_URL): a server to make a database on',
  );
const PEOPLE = wholeAbove0('people', values.people);
const PER_PERSON = wholeAbove0('waits-per-person', values['waits-per-person']);
const SESSIONS = wholeAbove0('sessions', values.sessions);
const HOLD_S = wholeAbove0('hold', values.hold);
const TRIALS = wholeAbove0('trials', values.trials);
const CALLS = wholeAbove0('calls', values.calls);
const ROUNDS = wholeAbove0('rounds', values.rounds);
const LATENCIES = String(values.latencies)
  .split(',')
  .map((v) => {
    const n = Number(v);
    if (!(Number.isInteger(n) && n >= 0))
      throw new Error(`--latencies must be whole numbers of ms, got "${v}"`);
    return n;
  });

const KEY = 'bench_mcp_key';
const CHANNEL = 'C0AGENTS';
const ALICE = 'U0ALICE';
const PROBE = fileURLToPath(new URL('./probe.js', import.meta.url));
const log = (line: string) => process.stdout.write(`${line}\n`);

/** The sandbox's workspace, with `count` more people, all in #agents (so each may see its sessions). */
function seedWith(count: number): { seed: WorkspaceSeed; people: string[] } {
  const seed = defaultSeed();
  const people = Array.from({ length: count }, (_, i) => `U0MCP${String(i).padStart(4, '0')}`);
  for (const id of people)
    seed.users.push({
      id,
      name: id.toLowerCase(),
      real_name: `Host ${id}`,
      is_bot: false,
      team_id: seed.teamId,
      tz: 'Europe/Berlin',
      profile: { display_name: id.toLowerCase(), real_name: `Host ${id}` },
    });
  // Approvers: a wait's check of who may see the session then asks Slack nothing (as a channel member,
  // each person would cost a users.info, Tier 4, once a minute).
  seed.userGroups = { ...seed.userGroups, S0APPROVERS: [...(seed.userGroups.S0APPROVERS ?? []), ...people] };
  seed.channelMembers = {
    ...seed.channelMembers,
    [CHANNEL]: [...(seed.channelMembers?.[CHANNEL] ?? []), ...people],
  };
  return { seed, people };
}

/** Each person's token, as App Home makes it, written into the bot's store before the bot opens it. */
async function mintTokens(
  where: { dataDir: string } | { databaseUrl: string },
  teamId: string,
  people: string[],
): Promise<string[]> {
  const store = await openStore(where);
  try {
    const tokens: string[] = [];
    for (const userId of people) tokens.push((await mintMcpToken(store, { teamId, userId })).token);
    return tokens;
  } finally {
    await store.close();
  }
}

/** Runs `fn` over `items`, `width` at a time. */
async function inBatches<T, R>(
  items: T[],
  width: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += width)
    out.push(...(await Promise.all(items.slice(i, i + width).map((item, j) => fn(item, i + j)))));
  return out;
}

/** Sessions of the emulator's long scenario (they neither end nor ask), each started by one person. */
async function startSessions(hosts: Host[], from: number, to: number): Promise<string[]> {
  return inBatches(hosts.slice(from, to), 10, async (host, i) => {
    const started = await host.call('start_session', {
      goal: `scenario:long bench:mcp #${from + i}`,
      channel: CHANNEL,
    });
    return String(started.session_id);
  });
}

/**
 * Each person's first call, before the waits are timed (the token's first use is written down; for a
 * channel member who is no approver the bot would also ask Slack's users.info whether they belong to
 * the workspace): reported apart from the waits'.
 */
async function warmUp(hosts: Host[], sessions: string[]): Promise<number> {
  const started = performance.now();
  await inBatches(hosts, 50, (host, i) =>
    host.call(
      'get_session',
      { session_id: sessions[(i * PER_PERSON) % sessions.length], messages: 0 },
      { timeoutMs: 300_000 },
    ),
  );
  return round((performance.now() - started) / 1000);
}

/** The bot as production runs it, with the probe loaded and the caps set for this many waits. */
function botFor(
  env: Record<string, string>,
  root: string,
  probeFile: string,
  database: { url: string } | undefined,
): Promise<Bot> {
  return spawnBot(
    {
      ...env,
      DATA_DIR: join(root, 'bot'),
      LOG_LEVEL: 'warn',
      AGENT_APPROVERS: 'S0APPROVERS',
      MCP_WAIT_MAX_SECONDS: '300',
      MCP_WAITS_PER_PERSON: String(PER_PERSON),
      MCP_WAITS_PER_WORKSPACE: String(PEOPLE * PER_PERSON),
      // The overhead rounds spend thousands of calls of one person within a minute.
      MCP_REQUESTS_PER_MINUTE: '10000',
      NODE_OPTIONS: `--expose-gc --import ${PROBE}`,
      ...(database ? { DATABASE_URL: database.url } : {}),
      BENCH_PROBE_FILE: probeFile,
      ...(process.env.BENCH_PROBE_PROFILE ? { BENCH_PROBE_PROFILE: process.env.BENCH_PROBE_PROFILE } : {}),
    },
    undefined,
    ...(values.bot ? [resolve(values.bot)] : []),
  );
}

/** Until the bot holds no wait of anyone's: each person's short waits, one per slot, all go through. */
async function drained(hosts: Host[], sessionId: string): Promise<void> {
  const until = Date.now() + 180_000;
  await inBatches(hosts, 50, async (host) => {
    for (;;) {
      try {
        // All of the person's slots at once: one left held refuses one of these.
        await Promise.all(
          Array.from({ length: PER_PERSON }, () =>
            host.call(
              'wait_for_session',
              { session_id: sessionId, timeout_seconds: 1 },
              { timeoutMs: 180_000 },
            ),
          ),
        );
        return;
      } catch (error) {
        if (Date.now() > until) {
          // Reported, not fatal: the next trial then starts with some slots still held.
          log(`  not drained after 180 s: ${String((error as Error).message).slice(0, 200)}`);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  });
}

/** A change with its sign: a negative one reads "−71.8", not "+-71.8". */
const signed = (n: number) => (n < 0 ? `−${-n}` : `+${n}`);

function printOverhead(o: OverheadFigures): void {
  const ms = (us: number) => `${(us / 1000).toFixed(2)} ms`;
  log(
    `  service latency ${o.serviceLatencyMs} ms (load ${o.loadAverage.join(' ')}): direct ${ms(o.directUs)}, MCP get_session ${ms(o.mcpUs)} (${o.ratio}×; ${signed(o.overheadMs)} ms), with 10 messages ${ms(o.mcpWithMessagesUs)} (${o.ratioWithMessages}×)`,
  );
}

function printTrial(t: WaitTrial, n: number): void {
  const a = (p: keyof WaitTrial['acks']) =>
    `${p} p50/p99/max ${t.acks[p].p50Ms}/${t.acks[p].p99Ms}/${t.acks[p].maxMs} ms (${t.acks[p].count}, ${t.acks[p].over1s} over 1 s)`;
  const d = (p: keyof WaitTrial['eventLoop']) =>
    `${p} p99 ${t.eventLoop[p].p99Ms} / max ${t.eventLoop[p].maxMs} ms`;
  log(
    `  trial ${n} (load ${t.loadAverage.join(' ')}): ${t.openAtBot} of ${t.waits} open at the bot after ${t.openingSeconds} s, ${t.endedEarly} ended early`,
  );
  log(
    `    RSS ${t.memory.before.rssMb} → ${t.memory.holding.rssMb} MB (${signed(t.memory.rssGrowthMb)}, peak ${signed(t.memory.peakRssGrowthMb)}); heap ${t.memory.before.heapUsedMb} → ${t.memory.holding.heapUsedMb} MB (${signed(t.memory.heapGrowthMb)})`,
  );
  log(`    event loop: ${d('before')}; ${d('opening')}; ${d('holding')}`);
  log(`    acks: ${a('before')}; ${a('opening')}; ${a('holding')}`);
  log(`    the bot's own count: ${t.botAcks.answered} answered, ${t.botAcks.within1s} within 1 s`);
  if (t.failures.length > 0) log(`    ended early: ${t.failures.join(' | ')}`);
}

function summary(trials: WaitTrial[]) {
  const med = (f: (t: WaitTrial) => number) => round(median(trials.map(f)));
  const worstAck = Math.max(...trials.flatMap((t) => [t.acks.opening.maxMs, t.acks.holding.maxMs]));
  const rssGrowthMb = med((t) => t.memory.rssGrowthMb);
  return {
    rssGrowthMb,
    peakRssGrowthMb: med((t) => t.memory.peakRssGrowthMb),
    heapGrowthMb: med((t) => t.memory.heapGrowthMb),
    eventLoopHoldingMaxMs: med((t) => t.eventLoop.holding.maxMs),
    eventLoopOpeningMaxMs: med((t) => t.eventLoop.opening.maxMs),
    ackHoldingMaxMs: med((t) => t.acks.holding.maxMs),
    ackOpeningMaxMs: med((t) => t.acks.opening.maxMs),
    worstAckMs: worstAck,
    met:
      rssGrowthMb <= 100 &&
      worstAck <= 1_000 &&
      trials.every((t) => t.openAtBot === t.waits && t.endedEarly === 0),
  };
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'bench-mcp-'));
  const probeFile = join(root, 'probe.jsonl');
  const { seed, people } = seedWith(PEOPLE + 1);
  const emulator = await spawnEmulator({ apiKeys: [KEY], quirks: '' });
  const sandbox = await startSandbox({ seed });
  const client = new AgentSessionsClient({ baseUrl: emulator.url, apiKey: KEY });
  const hosts: Host[] = [];
  let bot: Bot | undefined;
  const database = STORE === 'postgres' ? scratchDatabase(DATABASE_URL, 'bench_mcp') : undefined;
  try {
    await database?.create();
    const where = database ? { databaseUrl: database.url } : { dataDir: join(root, 'bot') };
    const tokens = await mintTokens(where, seed.teamId, people);
    bot = await botFor(botEnv(sandbox, emulator.url, KEY), root, probeFile, database);
    const mcpUrl = bot.eventsUrl.replace(/\/slack\/events$/, '/mcp');
    hosts.push(...(await inBatches(tokens, 20, (token, i) => connectHost(mcpUrl, token, `bench host ${i}`))));
    const extra = hosts.pop() as Host;
    // The overhead is measured with one session running; the others start after it, for the waits.
    const sessions = await startSessions(hosts, 0, 1);
    log(
      `MCP benchmark, ${STORE === 'postgres' ? 'PostgreSQL' : 'PGlite'} store${values.bot ? ` (bot: ${values.bot})` : ''}, on ${availableParallelism()} cores (load ${loadavg()
        .map((l) => round(l, 2))
        .join(' ')}): ${hosts.length} people, ${SESSIONS} sessions of the emulator's long scenario`,
    );
    log('tool call overhead: MCP get_session against core client sessions.get, same session, same emulator');
    const overhead: OverheadFigures[] = [];
    for (const latency of LATENCIES) {
      const zero = latency === 0;
      const figures = await measureOverhead({
        ...{ host: hosts[0] as Host, client, admin: emulator.admin, sessionId: sessions[0] as string },
        serviceLatencyMs: latency,
        callsPerRound: zero ? CALLS : Math.max(10, Math.round(CALLS / 8)),
        rounds: zero ? ROUNDS : Math.max(5, Math.round(ROUNDS / 2)),
      });
      overhead.push(figures);
      printOverhead(figures);
    }
    sessions.push(...(await startSessions(hosts, 1, SESSIONS)));
    const warmUpS = await warmUp(hosts, sessions);
    log(`each person's first call: all ${hosts.length} answered after ${warmUpS} s`);
    log(
      `${hosts.length * PER_PERSON} open wait_for_session calls (${hosts.length} people × ${PER_PERSON}), held ${HOLD_S} s`,
    );
    const probe = new ProbeReader(probeFile, () => bot?.child.pid);
    const trials: WaitTrial[] = [];
    for (let n = 1; n <= TRIALS; n++) {
      const trial = await waitTrial({
        ...{ hosts, extra, sessions, perPerson: PER_PERSON, holdSeconds: HOLD_S, probe },
        ...{ driver: sandbox.driver(bot.eventsUrl), ackUser: ALICE, channel: CHANNEL },
        ...{ eventsUrl: bot.eventsUrl, signingSecret: sandbox.signingSecret },
        metricsUrl: bot.eventsUrl.replace(/\/slack\/events$/, '/metrics'),
      });
      trials.push(trial);
      printTrial(trial, n);
      await drained([...hosts, extra], sessions[0] as string);
    }
    const waits = summary(trials);
    log(
      `  medians of ${TRIALS}: RSS ${signed(waits.rssGrowthMb)} MB (peak ${signed(waits.peakRssGrowthMb)}), heap ${signed(waits.heapGrowthMb)} MB; event loop max ${waits.eventLoopHoldingMaxMs} ms holding, ${waits.eventLoopOpeningMaxMs} ms opening; slowest ack ${waits.worstAckMs} ms`,
    );
    const overheadMet = overhead.every((o) => o.serviceLatencyMs === 0 || o.ratio <= 1.2);
    log(
      `targets: overhead ≤ 1.2× ${overheadMet ? 'met' : 'NOT met'} (at a service latency above 0); waits ${waits.met ? 'met' : 'NOT met'}`,
    );
    writeResult(values.out as string, {
      measuredAt: new Date().toISOString(),
      store: STORE,
      ...(values.bot ? { bot: values.bot } : {}),
      node: process.version,
      cores: availableParallelism(),
      people: hosts.length,
      waitsPerPerson: PER_PERSON,
      sessions: sessions.length,
      holdSeconds: HOLD_S,
      warmUpSeconds: warmUpS,
      caps: { MCP_WAITS_PER_PERSON: PER_PERSON, MCP_WAITS_PER_WORKSPACE: PEOPLE * PER_PERSON },
      overhead,
      waits: { ...waits, trials },
    });
    log(`wrote ${values.out}`);
  } catch (error) {
    if (bot) log(`the bot's last lines:\n${bot.tail()}`);
    throw error;
  } finally {
    await Promise.all(hosts.map((h) => h.close().catch(() => {})));
    await bot?.stop();
    await client.close();
    await sandbox.close();
    await emulator.close();
    await database?.drop().catch((error: unknown) => log(`the bench's database stays: ${String(error)}`));
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
