import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  readCreateSessionResponse,
  readHumanInputAck,
  readMessagesPage,
  readSessionStatus,
  readSignalResponse,
} from '../src/pure.js';

// "One odd field must never stop following a session, and no message is ever dropped": any JSON value in
// any field but the strict ones is read, and the original is kept.
const anyValue = fc.jsonValue({ maxDepth: 2 });
const id = fc.string({ minLength: 1, maxLength: 12 });

const statusBody = fc.record(
  {
    sessionId: id,
    status: fc.oneof(fc.constantFrom('running', 'waiting_human', 'completed', 'complete'), id),
    message: anyValue,
    cost: fc.oneof(
      anyValue,
      fc.record(
        { totalCost: anyValue, totalTokens: anyValue, promptTokens: anyValue, completionTokens: anyValue },
        { requiredKeys: [] },
      ),
    ),
    rounds: anyValue,
    createdAt: anyValue,
    updatedAt: anyValue,
    completedAt: anyValue,
    error: anyValue,
    completionReport: anyValue,
    extra: anyValue,
  },
  { requiredKeys: ['sessionId', 'status'] },
);

const messageBody = fc.record(
  {
    roundId: id,
    role: anyValue,
    content: fc.oneof(
      anyValue,
      fc.array(fc.oneof(fc.record({ type: fc.constant('text'), text: fc.string() }), anyValue)),
    ),
    name: anyValue,
    reasoning: anyValue,
    reasoningDurationMs: anyValue,
    toolCallId: anyValue,
    toolCalls: anyValue,
    timestamp: anyValue,
  },
  { requiredKeys: ['roundId'] },
);

const isTextOrNull = (v: unknown) => v === null || typeof v === 'string';

describe('reading a session status, whatever its optional fields hold', () => {
  it('always reads, normalizes to the promised types, and keeps the body in raw', () => {
    fc.assert(
      fc.property(statusBody, (body) => {
        const result = readSessionStatus(body);
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        const s = result.value;
        expect(s.raw).toBe(body);
        expect([s.sessionId, s.status]).toEqual([body.sessionId, body.status]);
        for (const n of [
          s.cost.totalCost,
          s.cost.totalTokens,
          s.cost.promptTokens,
          s.cost.completionTokens,
        ]) {
          expect(Number.isFinite(n)).toBe(true);
        }
        expect(Array.isArray(s.rounds)).toBe(true);
        for (const t of [s.message, s.error, s.createdAt, s.updatedAt, s.completedAt]) {
          expect(isTextOrNull(t)).toBe(true);
        }
      }),
    );
  });
});

describe('reading a page of messages, whatever its messages hold', () => {
  it('keeps every message, in order, each with text-or-null content and its original in raw', () => {
    fc.assert(
      fc.property(fc.array(messageBody, { maxLength: 8 }), anyValue, (messages, pagination) => {
        const result = readMessagesPage({ messages, pagination });
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        expect(result.value.messages.map((m) => m.raw)).toEqual(messages);
        for (const m of result.value.messages) {
          expect(isTextOrNull(m.content)).toBe(true);
          expect(isTextOrNull(m.timestamp)).toBe(true);
          if (m.role !== undefined) expect(typeof m.role).toBe('string');
        }
        expect(typeof result.value.pagination.hasMore).toBe('boolean');
      }),
    );
  });
});

describe('reading what a POST returned', () => {
  it('never fails, and keeps the body as sent', () => {
    fc.assert(
      fc.property(anyValue, (body) => {
        for (const read of [readCreateSessionResponse, readSignalResponse, readHumanInputAck]) {
          const result = read(body);
          expect(result.raw).toBe(body);
        }
        expect(typeof readCreateSessionResponse(body).sessionId).toBe('string');
      }),
    );
  });
});
