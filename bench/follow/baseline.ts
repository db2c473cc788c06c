import { type AgentSessionsClient, parseHumanInput, systemClock, TokenBucket } from '@agent-sessions/core';

export interface BaselineEvents {
  onMessage(sessionId: string, key: string): void;
  onHumanInput(sessionId: string, inputId: string): void;
}

/**
 * What a thin client and most integrations do: every session polled at one fixed interval — the one
 * the budget allows for status + messages of every session — reading one page after the last roundId.
 */
export async function runBaseline(
  client: AgentSessionsClient,
  sessionIds: string[],
  budgetRps: number,
  stopAt: number,
  events: BaselineEvents,
  countRequest: (sessionId: string) => void,
): Promise<void> {
  const bucket = new TokenBucket({ ratePerSecond: budgetRps, clock: systemClock });
  const intervalMs = (sessionIds.length * 2 * 1000) / budgetRps;
  const cursor = new Map<string, string | undefined>();
  const perRound = new Map<string, number>();
  const announced = new Set<string>();
  const start = Date.now();
  const inFlight = new Set<Promise<void>>();

  const pollOnce = async (sessionId: string) => {
    await bucket.take();
    countRequest(sessionId);
    const status = await client.sessions.get(sessionId, { maxRetries: 0 });
    for (const round of status.rounds) {
      const request = parseHumanInput(round);
      if (request && !announced.has(request.inputId)) {
        announced.add(request.inputId);
        events.onHumanInput(sessionId, request.inputId);
      }
    }
    await bucket.take();
    countRequest(sessionId);
    const after = cursor.get(sessionId);
    const page = await client.sessions.messages(sessionId, after ? { after } : {}, { maxRetries: 0 });
    for (const message of page.messages) {
      // Naive: positions counted from what this page shows of each round.
      const roundKey = `${sessionId}/${message.roundId}`;
      const position = perRound.get(roundKey) ?? 0;
      perRound.set(roundKey, position + 1);
      events.onMessage(sessionId, `${message.roundId}#${position}`);
      const request = parseHumanInput(message);
      if (request && !announced.has(request.inputId)) {
        announced.add(request.inputId);
        events.onHumanInput(sessionId, request.inputId);
      }
    }
    if (page.pagination.lastRoundId) cursor.set(sessionId, page.pagination.lastRoundId);
  };

  for (let cycle = 0; Date.now() < stopAt; cycle++) {
    for (let i = 0; i < sessionIds.length && Date.now() < stopAt; i++) {
      const dueAt = start + cycle * intervalMs + (i * intervalMs) / sessionIds.length;
      const wait = dueAt - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, Math.min(wait, stopAt - Date.now())));
      if (Date.now() >= stopAt) break;
      const poll = pollOnce(sessionIds[i] as string).catch(() => undefined);
      inFlight.add(poll);
      void poll.finally(() => inFlight.delete(poll));
      if (inFlight.size >= 32) await Promise.race(inFlight);
    }
  }
  await Promise.allSettled(inFlight);
}
