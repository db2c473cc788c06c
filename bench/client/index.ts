/**
 * Client overhead benchmark: AgentSessionsClient.sessions.get against a raw undici.request (+ JSON parse)
 * of the same URL with the same headers on the same emulator, in alternating rounds, side by side. Writes bench/results/client.json.
 *
 *   npm run bench:client -- [--requests 2000] [--rounds 7]
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { AgentSessionsClient } from '@agent-sessions/core';
import { spawnEmulator } from '@agent-sessions/emulator/testing';
import { Agent, request } from 'undici';
import { median, round } from '../stats.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '7' },
    out: { type: 'string', default: 'bench/results/client.json' },
  },
});
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);
const KEY = 'bench_key';

async function timed(n: number, call: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await call();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function main(): Promise<void> {
  const emulator = await spawnEmulator({ apiKeys: [KEY] });
  const client = new AgentSessionsClient({ baseUrl: emulator.url, apiKey: KEY });
  const raw = new Agent({ keepAliveTimeout: 10_000, connections: 32 });
  try {
    const { sessionId } = await client.sessions.create({ goal: 'benchmark' });
    const url = `${emulator.url}/v1/sessions/${sessionId}`;
    const ours = () => client.sessions.get(sessionId);
    const plain = async () => {
      const res = await request(url, {
        dispatcher: raw,
        headers: { authorization: `Bearer ${KEY}`, accept: 'application/json' },
      });
      return res.body.json();
    };
    await timed(300, ours);
    await timed(300, plain);
    const oursMs: number[] = [];
    const rawMs: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      // Alternate which goes first, so drift on a shared machine hits both alike.
      if (r % 2 === 0) {
        oursMs.push(await timed(REQUESTS, ours));
        rawMs.push(await timed(REQUESTS, plain));
      } else {
        rawMs.push(await timed(REQUESTS, plain));
        oursMs.push(await timed(REQUESTS, ours));
      }
    }
    const perRequestUs = (ms: number) => (ms * 1000) / REQUESTS;
    const ratios = oursMs.map((ms, i) => ms / (rawMs[i] as number));
    const result = {
      date: new Date().toISOString(),
      node: process.version,
      requestsPerRound: REQUESTS,
      rounds: ROUNDS,
      ours: {
        requestsPerSecond: Math.round(REQUESTS / (median(oursMs) / 1000)),
        perRequestUs: round(perRequestUs(median(oursMs))),
      },
      rawUndici: {
        requestsPerSecond: Math.round(REQUESTS / (median(rawMs) / 1000)),
        perRequestUs: round(perRequestUs(median(rawMs))),
      },
      overheadUs: round(perRequestUs(median(oursMs)) - perRequestUs(median(rawMs))),
      ratio: round(median(ratios), 3),
    };
    writeFileSync(values.out as string, `${JSON.stringify(result, null, 2)}\n`);
    const log = (s: string) => process.stdout.write(`${s}\n`);
    log(`client benchmark: ${ROUNDS} alternating rounds of ${REQUESTS} sequential GET /v1/sessions/{id}`);
    log(
      `  AgentSessionsClient  ${String(result.ours.requestsPerSecond).padStart(7)} req/s  ${result.ours.perRequestUs} µs/request (median round)`,
    );
    log(
      `  raw undici.request   ${String(result.rawUndici.requestsPerSecond).padStart(7)} req/s  ${result.rawUndici.perRequestUs} µs/request (median round)`,
    );
    log(
      `  overhead ${result.overheadUs} µs/request; ratio ours/raw (median of per-round ratios) ${result.ratio}`,
    );
    log(`wrote ${values.out}`);
  } finally {
    await client.close();
    await raw.close();
    await emulator.close();
  }
}

await main();
