import type { Context } from 'hono';
import { Hono } from 'hono';
import { scenarioFor } from '../agent/scenarios.js';
import { jsonBody } from '../body.js';
import type { Deps, Env } from '../context.js';
import { HttpError } from '../errors.js';
import type { Session } from '../model.js';
import { pageMessages } from '../pager.js';
import { presentMessage, presentObject, presentSession, presentTime } from '../present.js';
import { answerSchema, createSchema, messagesQuerySchema, parseOr400, signalSchema } from '../validation.js';

function ownedSession(deps: Deps, c: Context<Env>): Session {
  const id = c.req.param('id') ?? '';
  const session = deps.store.sessions.get(id);
  if (!session) throw new HttpError(404, `session ${id} not found`);
  if (session.accountId !== c.get('account').accountId) {
    throw new HttpError(403, 'not authorized to access this session');
  }
  return session;
}

export function sessionRoutes(deps: Deps) {
  const app = new Hono<Env>();

  app.post('/', async (c) => {
    const account = c.get('account');
    const body = parseOr400(createSchema, await jsonBody(c));
    if (!account.hasIntegration) throw new HttpError(404, 'integration not found');
    const context = body.context ?? null;
    const session = deps.engine.create(account, {
      goal: body.goal,
      context,
      guardrails: body.guardrails ?? {},
      scenario: scenarioFor(body.goal, context) ?? 'complete',
    });
    const first = session.rounds[0];
    return c.json(
      presentObject(
        { sessionId: session.sessionId, roundId: first?.roundId, status: 'queued' },
        deps.present,
        {
          createdAt: presentTime(session.createdAt, deps.present),
        },
      ),
      201,
    );
  });

  app.get('/:id', (c) => c.json(presentSession(ownedSession(deps, c), deps.present)));

  app.post('/:id/signal', async (c) => {
    const session = ownedSession(deps, c);
    const body = parseOr400(signalSchema, await jsonBody(c));
    const result = deps.engine.signal(session, body);
    return c.json(
      presentObject(
        {
          sessionId: session.sessionId,
          signal: body.type,
          ...(result.roundId ? { roundId: result.roundId } : {}),
          message: result.message,
        },
        deps.present,
        { acceptedAt: presentTime(deps.scheduler.clock.now(), deps.present) },
        ['roundId'],
      ),
      202,
    );
  });

  app.post('/:id/human-input/:inputId', async (c) => {
    const session = ownedSession(deps, c);
    const inputId = c.req.param('inputId');
    const body = parseOr400(answerSchema, await jsonBody(c));
    const result = deps.engine.answer(session, inputId, body);
    return c.json(
      presentObject(
        {
          inputId,
          status: 'responded',
          ...(result.roundId ? { roundId: result.roundId } : {}),
          message: result.message,
        },
        deps.present,
        { respondedAt: presentTime(deps.scheduler.clock.now(), deps.present) },
        ['roundId'],
      ),
    );
  });

  app.get('/:id/messages', (c) => {
    const session = ownedSession(deps, c);
    const query = parseOr400(messagesQuerySchema, {
      limit: c.req.query('limit'),
      after: c.req.query('after'),
    });
    const page = pageMessages(session, query, deps.present.quirks);
    return c.json(
      presentObject(
        {
          sessionId: session.sessionId,
          messages: page.messages.map((m) => presentMessage(m, deps.present)),
          pagination: presentObject(
            { count: page.messages.length, hasMore: page.hasMore, lastRoundId: page.lastRoundId },
            deps.present,
            { limit: query.limit, order: 'asc' },
          ),
        },
        deps.present,
        { fetchedAt: presentTime(deps.scheduler.clock.now(), deps.present) },
      ),
    );
  });

  return app;
}
