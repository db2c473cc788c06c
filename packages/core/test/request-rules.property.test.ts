import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { RequestRule } from '../src/http/request-rules.js';
import {
  createSessionRequestSchema,
  createSessionRule,
  humanInputResponseRequestSchema,
  humanInputResponseRule,
  idRule,
  idSchema,
  messagesQueryRule,
  messagesQuerySchema,
  signalRequestSchema,
  signalRule,
} from '../src/pure.js';

// JSON without its own `__proto__` keys. zod builds the objects it checks by assignment, so an own
// `__proto__` key (which JSON.parse makes) silently falls out of them; the rules send what was given. A value
// zod passes through unchecked (an unknown key's) keeps its `__proto__` keys, so both sides leave them out.
const withoutProtoKeys = (json: string): string =>
  JSON.stringify(JSON.parse(json, (key, v: unknown) => (key === '__proto__' ? undefined : v)));

// The session endpoints check requests with plain rules (so the pure API carries no zod), and the zod
// schemas stay the public description of the same rules: on any value, both accept the same requests,
// sending the same JSON (but for the `__proto__` keys zod drops), and refuse the rest with the same
// fields and messages.
function agree(schema: z.ZodType, rule: RequestRule<unknown>, value: unknown): void {
  const byZod = schema.safeParse(value);
  const byRule = rule(value);
  if (byZod.success) {
    expect(byRule).toEqual({ ok: true, value: expect.anything() });
    if (byRule.ok) {
      const sentByZod = withoutProtoKeys(JSON.stringify(byZod.data));
      expect(withoutProtoKeys(JSON.stringify(byRule.value))).toBe(sentByZod);
    }
  } else {
    const issues = byZod.error.issues.map((issue) => ({ path: issue.path, message: issue.message }));
    expect(byRule).toEqual({ ok: false, issues });
  }
}

// Values around each rule's edges: every JSON type, odd numbers, and the fields each body knows.
const odd = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    Number.NaN,
    Infinity,
    -Infinity,
    2 ** 60,
    -(2 ** 60),
    0,
    0.5,
    1,
    200,
    201,
    250.5,
    undefined,
  ),
  fc.integer({ min: -5, max: 300 }),
);
const body = (keys: Record<string, fc.Arbitrary<unknown>>) =>
  fc.oneof(fc.record({ ...keys, extra: odd }, { requiredKeys: [] }), odd);

const cases: [string, z.ZodType, RequestRule<unknown>, fc.Arbitrary<unknown>][] = [
  [
    'session id',
    idSchema('sessionId'),
    idRule('sessionId'),
    // Nothing with a `length`: zod also measures a non-string that has one (`[]` and `{"length":""}` are
    // "not a string" and "empty" to it), where the rule stops at "not a string".
    fc.oneof(
      fc.string({ maxLength: 4 }),
      fc.constantFrom('.', '..', 'a/b', 'a?b', '#', '\\', ''),
      odd.filter((v) => !(typeof v === 'object' && v !== null && 'length' in v)),
    ),
  ],
  [
    'create session',
    createSessionRequestSchema,
    createSessionRule,
    body({
      goal: fc.oneof(fc.string(), odd),
      context: fc.oneof(fc.constant(null), fc.dictionary(fc.string(), odd), odd),
      guardrails: fc.oneof(body({ maxCostPerSession: odd, maxIterations: odd }), odd),
    }),
  ],
  [
    'signal',
    signalRequestSchema,
    signalRule,
    body({
      type: fc.oneof(fc.constantFrom('pause', 'resume', 'cancel', 'redirect', 'stop'), odd),
      reason: fc.oneof(fc.string(), odd),
      message: fc.oneof(fc.string(), odd),
      newBudget: odd,
    }),
  ],
  [
    'human-input response',
    humanInputResponseRequestSchema,
    humanInputResponseRule,
    body({
      approved: fc.oneof(fc.boolean(), odd),
      choiceId: fc.oneof(fc.string(), odd),
      choiceIds: fc.oneof(fc.array(fc.oneof(fc.string(), odd), { maxLength: 3 }), odd),
      freeText: fc.oneof(fc.string(), odd),
      answers: fc.oneof(fc.dictionary(fc.string(), odd), odd),
    }),
  ],
  [
    'messages query',
    messagesQuerySchema,
    messagesQueryRule,
    body({ limit: odd, after: fc.oneof(fc.string(), odd) }),
  ],
];

describe('each plain request rule agrees with its zod schema', () => {
  it.each(cases)('%s', (_name, schema, rule, values) => {
    fc.assert(
      fc.property(values, (value) => agree(schema, rule, value)),
      { numRuns: 2_000 },
    );
  });
});

describe('a `__proto__` key someone gave', () => {
  // fast-check's find: zod passes an unknown key's value through as it is, own `__proto__` keys and all.
  it('inside a value passed through unchecked, is compared the same way on both sides', () => {
    const value = JSON.parse('{"extra":[{"__proto__":0}]}') as unknown;
    agree(humanInputResponseRequestSchema, humanInputResponseRule, value);
    const sent = humanInputResponseRule(value);
    expect(sent.ok && JSON.stringify(sent.value)).toBe('{"extra":[{"__proto__":0}]}');
  });

  // Nothing typed is dropped silently: zod would lose these keys, the rules send them as given.
  it('goes out with the rest of the request', () => {
    const answer = JSON.parse('{"answers":{"__proto__":"yes","q2":"no"}}') as unknown;
    const answered = humanInputResponseRule(answer);
    expect(answered.ok && JSON.stringify(answered.value)).toBe('{"answers":{"__proto__":"yes","q2":"no"}}');
    const create = JSON.parse('{"goal":"g","context":{"__proto__":{"x":1}}}') as unknown;
    const created = createSessionRule(create);
    expect(created.ok && JSON.stringify(created.value)).toBe('{"goal":"g","context":{"__proto__":{"x":1}}}');
    expect(humanInputResponseRequestSchema.parse(answer)).toEqual({ answers: { q2: 'no' } });
  });
});
