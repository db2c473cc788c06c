import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { jsonBody } from '../body.js';
import type { Deps, Env } from '../context.js';
import { badRequest, HttpError } from '../errors.js';
import { faultsSchema } from '../faults.js';
import type { Session } from '../model.js';
import { type PresentOptions, presentRound } from '../present.js';
import { parseQuirks, QuirksError, quirkNames } from '../quirks.js';
import { parseOr400 } from '../validation.js';

const quirksBodySchema = z.object({
  quirks: z.string({ error: 'quirks is required: "all", "" or a comma list of quirk names' }),
});

const advanceSchema = z.object({
  ms: z
    .number({ error: 'ms is required and must be a number' })
    .int('ms must be an integer')
    .min(0)
    .max(86_400_000),
});

/** The key a request bears, as /v1 takes it: `Authorization: Bearer …` or `X-Service-Key`. */
function keyOf(c: Context<Env>): string | undefined {
  return (
    c.req
      .header('authorization')
      ?.match(/^Bearer\s+(.+)$/i)?.[1]
      ?.trim() ?? c.req.header('x-service-key')?.trim()
  );
}

/** One session as /_emulator/sessions shows it: what it was asked, where it is, and every question asked. */
function adminSession(s: Session, present: PresentOptions) {
  const pending = s.rounds.map((r) => r.humanInput).find((h) => h?.status === 'pending');
  return {
    sessionId: s.sessionId,
    accountId: s.accountId,
    scenario: s.scenario,
    goal: s.goal,
    // What the caller asked for, as it arrived: tests check what a client sent (context, guardrails).
    context: s.context,
    maxCostPerSession: s.maxCostPerSession,
    maxIterations: s.maxIterations,
    status: s.status,
    cost: s.cost,
    rounds: s.rounds.map((r) => presentRound(r, present)),
    // What a caller can see: hidden entries (a quirk) are not messages to it.
    messageCount: s.rounds.reduce((n, r) => n + r.messages.filter((m) => !m.hidden).length, 0),
    pendingInput: pending ? pending.request : null,
    // Every question asked and the answer body as it arrived: what end-to-end tests check.
    humanInputs: s.rounds.flatMap((r) =>
      r.humanInput
        ? [
            {
              inputId: r.humanInput.request.inputId,
              kind: r.humanInput.request.kind,
              status: r.humanInput.status,
              ...(r.humanInput.answer !== undefined ? { answer: r.humanInput.answer } : {}),
            },
          ]
        : [],
    ),
    createdAt: new Date(s.createdAt).toISOString(),
  };
}

/** Development-only controls: time, faults, inspection. No API key; the emulator listens on loopback. */
export function adminRoutes(deps: Deps) {
  const app = new Hono<Env>();

  app.post('/advance', async (c) => {
    const { ms } = parseOr400(advanceSchema, await jsonBody(c));
    if (deps.scheduler.clock.mode !== 'manual') {
      throw badRequest('advance needs the manual clock: start the emulator with --clock manual');
    }
    return c.json({ now: deps.scheduler.advance(ms) });
  });

  app.get('/faults', (c) => c.json(deps.faults.config));
  app.post('/faults', async (c) => {
    const partial = parseOr400(faultsSchema.partial(), await jsonBody(c));
    return c.json(deps.faults.set(partial));
  });
  app.delete('/faults', (c) => c.json(deps.faults.clear()));

  // Quirks switched here apply from the next request or scripted step on (sessions already made keep
  // the rounds they have).
  app.get('/quirks', (c) => c.json({ quirks: quirkNames(deps.present.quirks) }));
  app.post('/quirks', async (c) => {
    const { quirks } = parseOr400(quirksBodySchema, await jsonBody(c));
    let parsed: ReturnType<typeof parseQuirks>;
    try {
      parsed = parseQuirks(quirks, 'quirks');
    } catch (error) {
      if (error instanceof QuirksError) throw badRequest(error.message);
      throw error;
    }
    Object.assign(deps.present.quirks, parsed);
    return c.json({ quirks: quirkNames(deps.present.quirks) });
  });

  // Every session; with a key (as /v1 takes it), only that key's account's: what its tenant sees.
  app.get('/sessions', (c) => {
    const key = keyOf(c);
    const account = key === undefined ? undefined : deps.store.accountsByKey.get(key);
    if (key !== undefined && !account) throw new HttpError(401, 'invalid API key');
    const mine = [...deps.store.sessions.values()].filter(
      (s) => !account || s.accountId === account.accountId,
    );
    return c.json({ sessions: mine.map((s) => adminSession(s, deps.present)) });
  });

  app.get('/events', (c) => {
    const after = Number(c.req.query('after') ?? 0);
    const limit = Math.min(Number(c.req.query('limit') ?? 100_000), 1_000_000);
    const sessionId = c.req.query('sessionId');
    const events = deps.store.events.filter(
      (e) => e.seq > after && (sessionId === undefined || e.sessionId === sessionId),
    );
    const page = events.slice(0, limit);
    return c.json({ events: page, hasMore: events.length > page.length });
  });

  app.get('/stats', (c) =>
    c.json({
      requests: Object.fromEntries(deps.store.requestCounts),
      byKeyIndex: Object.fromEntries(deps.store.keyCounts),
      sessions: deps.store.sessions.size,
      scheduledSteps: deps.scheduler.pending,
    }),
  );

  // The W3C trace context the latest requests carried: a caller's tests match it to their spans.
  app.get('/traceparents', (c) => c.json({ requests: deps.store.traceparents }));

  app.post('/reset', (c) => {
    for (const s of deps.store.sessions.values()) s.script.timer++;
    deps.store.reset();
    deps.faults.clear();
    return c.json({ ok: true });
  });

  return app;
}
