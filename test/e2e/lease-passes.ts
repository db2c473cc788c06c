import type { RunningBot } from '@agent-sessions/slack-bot';
import { vi } from 'vitest';
import { WAIT_MS } from './harness.js';

/**
 * "Some time later", counted by what the bot did rather than by the clock: resolves once the bot has
 * finished `passes` more lease passes (each renews its leases, takes free sessions and gives up lost ones,
 * the moments a duplicate notice or a take-over would happen). A check that nothing more happens then
 * holds over the same stretch of the bot's work on a quiet machine and a busy one, where a fixed sleep
 * covers fewer passes the busier the machine is.
 */
export async function afterLeasePasses(
  bot: RunningBot | { eventsUrl: string },
  passes: number,
): Promise<void> {
  const count = 'metrics' in bot ? () => passesInProcess(bot) : () => passesScraped(bot.eventsUrl);
  const from = await count();
  await vi.waitFor(
    async () => {
      const now = await count();
      if (now < from + passes) throw new Error(`${now - from} of ${passes} lease passes so far`);
    },
    { timeout: WAIT_MS, interval: 50 },
  );
}

async function passesInProcess(bot: RunningBot): Promise<number> {
  return (await bot.metrics.leasePasses.get()).values[0]?.value ?? 0;
}

/** A bot process's count, from its /metrics (the series names no workspace, so no token is needed). */
async function passesScraped(eventsUrl: string): Promise<number> {
  const text = await (await fetch(new URL('/metrics', eventsUrl))).text();
  const line = /^agent_lease_passes_total (\d+)/m.exec(text);
  if (!line) throw new Error('the bot’s /metrics has no agent_lease_passes_total');
  return Number(line[1]);
}
