/**
 * Client overhead benchmark: AgentSessionsClient.sessions.get against a raw undici.request (+ JSON parse)
 * of the same URL with the same key (ours also sends its user-agent) on the same emulator, side by side in
 * one process. The machine is shared, so the contenders take turns in short rounds (each going first in
 * turn) and the figure is the median of per-round ratios: drift in load hits every side of a round alike. Also shown, for
 * reference: the dispatcher's own `agent.request({ origin, path })`, undici's leanest call (no URL
 * parsing), which is what the client itself sends through. Writes bench/results/client.json.
 *
 *   npm run bench:client -- [--requests 500] [--rounds 31]
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { AgentSessionsClient } from '@agent-sessions/core';
import { spawnEmulator } from '@agent-sessions/emulator/testing';
import { Agent, request } from 'undici';
import { writeResult } from '../cli.js';
import { median, round } from '../stats.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '500' },
    rounds: { type: 'string', default: '31' },
    out: { type: 'string', default: 'bench/results/client.json' },
  },
});
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);
const KEY = 'bench_key';

interface Sample {
  wallMs: number;
  /** This process's CPU (user + system): what the client itself costs, the emulator runs apart. */
  cpuMs: number;
}

async function timed(n: number, call: () => Promise<unknown>): Promise<Sample> {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await call();
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

async function main(): Promise<void> {
  const emulator = await spawnEmulator({ apiKeys: [KEY] });
  const client = new AgentSessionsClient({ baseUrl: emulator.url, apiKey: KEY });
  const raw = new Agent({ keepAliveTimeout: 10_000, connections: 32 });
  const lean = new Agent({ keepAliveTimeout: 10_000, connections: 32 });
  try {
    const { sessionId } = await client.sessions.create({ goal: 'benchmark' });
    const url = `${emulator.url}/v1/sessions/${sessionId}`;
    const { origin, pathname } = new URL(url);
    const headers = { authorization: `Bearer ${KEY}`, accept: 'application/json' };
    const contenders = {
      ours: () => client.sessions.get(sessionId),
      rawUndici: async () => (await request(url, { dispatcher: raw, headers })).body.json(),
      rawDispatcher: async () =>
        (await lean.request({ origin, path: pathname, method: 'GET', headers })).body.json(),
    };
    type Name = keyof typeof contenders;
    const names = Object.keys(contenders) as Name[];
    for (const name of names) await timed(300, contenders[name]);
    const samples: Record<Name, Sample[]> = { ours: [], rawUndici: [], rawDispatcher: [] };
    for (let r = 0; r < ROUNDS; r++) {
      // Each contender goes first in turn, so drift on a shared machine hits all alike.
      for (let i = 0; i < names.length; i++) {
        const name = names[(r + i) % names.length] as Name;
        samples[name].push(await timed(REQUESTS, contenders[name]));
      }
    }
    const perRequestUs = (ms: number) => (ms * 1000) / REQUESTS;
    const summary = (name: Name) => {
      const wall = median(samples[name].map((s) => s.wallMs));
      return {
        requestsPerSecond: Math.round(REQUESTS / (wall / 1000)),
        perRequestUs: round(perRequestUs(wall)),
        cpuPerRequestUs: round(perRequestUs(median(samples[name].map((s) => s.cpuMs)))),
      };
    };
    const ratioTo = (other: Name) =>
      round(median(samples.ours.map((s, i) => s.wallMs / (samples[other][i] as Sample).wallMs)), 3);
    const ours = summary('ours');
    const rawUndici = summary('rawUndici');
    const rawDispatcher = summary('rawDispatcher');
    const result = {
      date: new Date().toISOString(),
      node: process.version,
      loadAverage: loadavg().map((l) => round(l, 2)),
      requestsPerRound: REQUESTS,
      rounds: ROUNDS,
      ours,
      rawUndici,
      rawDispatcher,
      overheadUs: round(ours.perRequestUs - rawUndici.perRequestUs),
      /** The target's figure: ours / raw undici.request, median of per-round ratios. */
      ratio: ratioTo('rawUndici'),
      ratioToDispatcher: ratioTo('rawDispatcher'),
    };
    writeResult(values.out as string, result);
    const log = (s: string) => process.stdout.write(`${s}\n`);
    const line = (label: string, s: typeof ours) =>
      log(
        `  ${label.padEnd(30)} ${String(s.requestsPerSecond).padStart(6)} req/s  ${String(s.perRequestUs).padStart(6)} µs/request  ${String(s.cpuPerRequestUs).padStart(6)} µs CPU/request`,
      );
    log(
      `client benchmark: ${ROUNDS} rounds, each contender ${REQUESTS} sequential GET /v1/sessions/{id} per round (medians of rounds); load average ${result.loadAverage.join(' ')}`,
    );
    line('AgentSessionsClient', ours);
    line('raw undici.request', rawUndici);
    line('raw agent.request (reference)', rawDispatcher);
    log(
      `  ratio ours / raw undici.request ${result.ratio} (median of per-round ratios; target <= 1.05); overhead ${result.overheadUs} µs/request`,
    );
    log(`  ratio ours / raw agent.request ${result.ratioToDispatcher}`);
    log(`wrote ${values.out}`);
  } finally {
    await client.close();
    await raw.close();
    await lean.close();
    await emulator.close();
  }
}

await main();
