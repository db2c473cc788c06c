/**
 * `scenario:unreadable_question`: the agent asks in another framework's shape (an MCP-style elicitation),
 * so a client that only reads `human_input_needed` finds no question while the session waits on a person.
 * The id is still in the raw data, and the emulator takes a freeText answer to it (or a cancel).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { EmulatorOptions } from '../../src/server.js';
import { elicitation, round, sessionStatus } from '../../src/wire.js';
import { inProcessEmulator, type Json } from '../in-process.js';

interface WireRound extends Json {
  roundId: string;
  completedAt: unknown;
  humanInput?: unknown;
  elicitation?: { requestId: string; message: string; status: string; requestedSchema: Json } | null;
}

function setup(quirks: string, options: EmulatorOptions = {}) {
  const { deps, call } = inProcessEmulator(quirks, options);
  const status = async (id: string) => (await call('GET', `/v1/sessions/${id}`)).body;
  /** Every message a caller can see, read page by page by `lastRoundId` as the spec says. */
  const messages = async (id: string): Promise<Json[]> => {
    const out: Json[] = [];
    let after: string | undefined;
    for (let i = 0; i < 100; i++) {
      const query = new URLSearchParams({ limit: '200', ...(after ? { after } : {}) });
      const page = (await call('GET', `/v1/sessions/${id}/messages?${query}`)).body as {
        messages: Json[];
        pagination: { hasMore: boolean; lastRoundId: string | null };
      };
      out.push(...page.messages);
      if (!page.pagination.hasMore || !page.pagination.lastRoundId) return out;
      after = page.pagination.lastRoundId;
    }
    throw new Error('messages never ended');
  };
  const runUntil = async (id: string, done: (s: Json) => boolean, ms = 120_000) => {
    for (let t = 0; t < ms; t += 250) {
      if (done(await status(id))) return status(id);
      deps.scheduler.advance(250);
    }
    throw new Error(`session ${id} never got there: ${JSON.stringify(await status(id))}`);
  };
  const start = async () => {
    const res = await call('POST', '/v1/sessions', { goal: 'scenario:unreadable_question migrate the db' });
    expect(res.status).toBe(201);
    const id = String(res.body.sessionId);
    const waiting = await runUntil(id, (s) => s.status === 'waiting_human');
    return { id, rounds: waiting.rounds as WireRound[] };
  };
  return { call, status, messages, runUntil, start };
}

const isTerminal = (s: Json) => ['completed', 'complete', 'cancelled'].includes(String(s.status));
const asking = (rounds: WireRound[]) => rounds.find((r) => r.elicitation?.status === 'pending');

describe.each(['', 'all'])('scenario unreadable_question (quirks: "%s")', (quirks) => {
  it('waits with no human_input_needed anywhere, the id under requestId in the message and the round', async () => {
    const { start, messages } = setup(quirks);
    const { id, rounds } = await start();
    const round = asking(rounds);
    const inputId = round?.elicitation?.requestId;
    expect(inputId).toMatch(/^in_/);
    expect(round?.elicitation).toMatchObject({
      message: 'When may I run the database migration?',
      requestedSchema: { type: 'object', required: ['answer'] },
    });
    // Not our shape anywhere: no round carries humanInput, no message is (or calls) human_input_needed.
    expect(rounds.every((r) => r.humanInput === undefined || r.humanInput === null)).toBe(true);
    const all = await messages(id);
    expect(JSON.stringify(all)).not.toContain('human_input_needed');
    const question = all.find((m) => m.name === 'elicitation_request');
    expect(question?.roundId).toBe(round?.roundId);
    expect(JSON.parse(String(question?.content))).toEqual({
      elicitation: {
        requestId: inputId,
        message: 'When may I run the database migration?',
        requestedSchema: round?.elicitation?.requestedSchema,
      },
    });
  });

  it('takes freeText to that id (a wrong answer is a 400 naming freeText), then says so and completes', async () => {
    const { start, call, runUntil, messages } = setup(quirks);
    const { id, rounds } = await start();
    const inputId = asking(rounds)?.elicitation?.requestId;
    const wrong = await call('POST', `/v1/sessions/${id}/human-input/${inputId}`, { approved: true });
    expect(wrong).toMatchObject({ status: 400, body: { error: expect.stringMatching(/freeText/) } });
    const ack = await call('POST', `/v1/sessions/${id}/human-input/${inputId}`, {
      freeText: 'Sunday 02:00 UTC',
    });
    expect(ack).toMatchObject({ status: 200, body: { status: 'responded' } });
    const done = await runUntil(id, isTerminal);
    expect(done).toMatchObject({ completionReport: { summary: 'Migration scheduled: Sunday 02:00 UTC' } });
    expect(['completed', 'complete']).toContain(done.status);
    const answered = (done.rounds as WireRound[]).find((r) => r.elicitation);
    expect(answered?.elicitation?.status).toBe('responded');
    expect((await messages(id)).some((m) => m.content === 'Got it: Sunday 02:00 UTC')).toBe(true);
  });

  it('can be cancelled while it waits; the question is then superseded and answering it is refused', async () => {
    const { start, call, status } = setup(quirks);
    const { id, rounds } = await start();
    const inputId = asking(rounds)?.elicitation?.requestId;
    const cancel = await call('POST', `/v1/sessions/${id}/signal`, { type: 'cancel' });
    expect(cancel.status).toBe(202);
    const after = await status(id);
    expect(after.status).toBe('cancelled');
    expect((after.rounds as WireRound[]).find((r) => r.elicitation)?.elicitation?.status).toBe('superseded');
    const late = await call('POST', `/v1/sessions/${id}/human-input/${inputId}`, { freeText: 'too late' });
    expect(late.status).toBe(400);
  });
});

it('keeps its own shape when the other questions come as tool calls', async () => {
  const { start, messages } = setup('', { humanInputShape: 'tool_call' });
  const { id } = await start();
  const all = await messages(id);
  expect(all.some((m) => m.name === 'elicitation_request')).toBe(true);
  expect(JSON.stringify(all)).not.toContain('human_input_needed');
});

it('sends rounds the OpenAPI document describes (the elicitation is a documented round field)', async () => {
  const { start, status } = setup('');
  const { id } = await start();
  // Strict: a field the document doesn't name fails here, as a looseObject would let it through.
  const documented = sessionStatus.extend({ rounds: z.array(round.strict()) });
  const parsed = documented.safeParse(await status(id));
  expect(parsed.error).toBeUndefined();
  const question = parsed.data?.rounds.find((r) => r.elicitation)?.elicitation;
  expect(elicitation.strict().safeParse(question).error).toBeUndefined();
});
