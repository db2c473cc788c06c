import { loadavg } from 'node:os';
import type { AgentSessionsClient } from '@agent-sessions/core';
import type { EmulatorAdmin } from '@agent-sessions/emulator/testing';
import { median, round } from '../stats.js';
import type { Host } from './hosts.js';

/** One service latency's figures: per-call medians (µs) of each contender, and the ratio the target reads. */
export interface OverheadFigures {
  serviceLatencyMs: number;
  callsPerRound: number;
  rounds: number;
  loadAverage: number[];
  /** core's client, `sessions.get`: one GET to the service. */
  directUs: number;
  /** MCP `get_session` with `messages: 0`: the bot's checks, the store, and that one GET. */
  mcpUs: number;
  /** MCP `get_session` as a host calls it by default (10 latest messages: a second read, in parallel). */
  mcpWithMessagesUs: number;
  /** The target's figure: MCP / direct, the median of per-round ratios (target ≤ 1.2). */
  ratio: number;
  ratioWithMessages: number;
  overheadMs: number;
}

async function timed(n: number, call: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await call();
  return Number(process.hrtime.bigint() - start) / 1e3 / n;
}

/**
 * A tool call against the service called directly, side by side: the contenders take turns in short
 * rounds (each going first in turn), so a shared machine's drift hits all alike; the ratio is the median
 * of per-round ratios. The service's latency is the emulator's, set for the whole of each measurement.
 */
export async function measureOverhead(input: {
  host: Host;
  client: AgentSessionsClient;
  admin: EmulatorAdmin;
  sessionId: string;
  serviceLatencyMs: number;
  callsPerRound: number;
  rounds: number;
}): Promise<OverheadFigures> {
  const { host, client, sessionId, callsPerRound, rounds } = input;
  await input.admin.setFaults({ latencyMs: input.serviceLatencyMs });
  const contenders = {
    direct: () => client.sessions.get(sessionId),
    mcp: () => host.call('get_session', { session_id: sessionId, messages: 0 }),
    mcpWithMessages: () => host.call('get_session', { session_id: sessionId }),
  };
  type Name = keyof typeof contenders;
  const names = Object.keys(contenders) as Name[];
  try {
    for (const name of names) await timed(Math.min(50, callsPerRound), contenders[name]);
    const samples: Record<Name, number[]> = { direct: [], mcp: [], mcpWithMessages: [] };
    for (let r = 0; r < rounds; r++)
      for (let i = 0; i < names.length; i++) {
        const name = names[(r + i) % names.length] as Name;
        samples[name].push(await timed(callsPerRound, contenders[name]));
      }
    const ratioOf = (name: Name) =>
      round(median(samples[name].map((us, i) => us / (samples.direct[i] as number))), 3);
    const directUs = round(median(samples.direct));
    const mcpUs = round(median(samples.mcp));
    return {
      serviceLatencyMs: input.serviceLatencyMs,
      callsPerRound,
      rounds,
      loadAverage: loadavg().map((l) => round(l, 2)),
      directUs,
      mcpUs,
      mcpWithMessagesUs: round(median(samples.mcpWithMessages)),
      ratio: ratioOf('mcp'),
      ratioWithMessages: ratioOf('mcpWithMessages'),
      overheadMs: round((mcpUs - directUs) / 1000, 2),
    };
  } finally {
    await input.admin.clearFaults();
  }
}
