import type { Context } from 'hono';
import { Hono } from 'hono';
import { scenarioFor } from '../agent/scenarios.js';
import { jsonBody } from '../body.js';
import type { Deps, Env } from '../context.js';
import { badRequest, HttpError } from '../errors.js';
import type { Session } from '../model.js';
import { presentMessage, presentSession } from '../present.js';
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
    return c.json({ sessionId: session.sessionId, roundId: first?.roundId, status: 'queued' }, 201);
  });

  app.get('/:id', (c) => c.json(presentSession(ownedSession(deps, c), deps.present)));

  app.post('/:id/signal', async (c) => {
    const session = ownedSession(deps, c);
    const body = parseOr400(signalSchema, await jsonBody(c));
    const result = deps.engine.signal(session, body);
    return c.json(
      {
        sessionId: session.sessionId,
        signal: body.type,
        ...(result.roundId ? { roundId: result.roundId } : {}),
        message: result.message,
      },
      202,
    );
  });

  app.post('/:id/human-input/:inputId', async (c) => {
    const session = ownedSession(deps, c);
    const inputId = c.req.param('inputId');
    const body = parseOr400(answerSchema, await jsonBody(c));
    const result = deps.engine.answer(session, inputId, body);
    return c.json({
      inputId,
      status: 'responded',
      ...(result.roundId ? { roundId: result.roundId } : {}),
      message: result.message,
    });
  });

  app.get('/:id/messages', (c) => {
    const session = ownedSession(deps, c);
    const query = parseOr400(messagesQuerySchema, {
      limit: c.req.query('limit'),
      after: c.req.query('after'),
    });
    let start = 0;
    if (query.after !== undefined) {
      const index = session.rounds.findIndex((r) => r.roundId === query.after);
      if (index < 0) throw badRequest(`after: "${query.after}" is not a roundId of this session`);
      start = index + 1;
    }
    const all = session.rounds.slice(start).flatMap((r) => r.messages);
    const page = all.slice(0, query.limit);
    const last = page[page.length - 1];
    return c.json({
      sessionId: session.sessionId,
      messages: page.map((m) => presentMessage(m, deps.present)),
      pagination: {
        count: page.length,
        hasMore: all.length > page.length,
        lastRoundId: last?.roundId ?? null,
      },
    });
  });

  return app;
}
