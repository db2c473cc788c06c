import { z } from 'zod';
import { ROUND_STATUSES, SESSION_STATUSES } from './model.js';

/**
 * The shapes the emulator answers with, as zod schemas: the OpenAPI document's response schemas are
 * generated from these (`openapi.ts`), and a test checks served responses against that document. They
 * describe the emulator without quirks; the quirks (README) send what the spec also allows: extra
 * fields, nulls, other timestamp formats and statuses.
 */

// The spec leaves timestamps untyped; the emulator sends ISO-8601 unless EMULATOR_TIMESTAMPS says otherwise.
const timestamp = () =>
  z.unknown().describe('ISO-8601 by default; EMULATOR_TIMESTAMPS picks epoch or Firestore forms');
// Counts and indexes: JSON Schema's integer without zod's safe-integer bounds noise.
const count = () => z.int().nonnegative();
const nullableTimestamp = () => z.unknown().describe('null until set; otherwise like the other timestamps');

export const errorBody = z.object({ error: z.string() });

export const signupResponse = z.object({
  user: z.object({
    uid: z.string(),
    email: z.string(),
    displayName: z.string().nullable(),
    photoURL: z.string().nullable(),
    emailVerified: z.boolean(),
  }),
  idToken: z.string(),
  refreshToken: z.string(),
  expiresIn: z.string().describe('Lifetime of idToken in seconds'),
});

export const sessionCreateResponse = z.object({
  sessionId: z.string(),
  roundId: z.string().describe('Identifier of the first round'),
  status: z.literal('queued'),
});

export const cost = z.object({
  totalCost: z.number().describe('USD'),
  totalTokens: count(),
  promptTokens: count(),
  completionTokens: count(),
});

const option = z.object({ id: z.string(), label: z.string(), description: z.string().optional() });

export const humanInput = z
  .looseObject({
    inputId: z.string(),
    kind: z.enum(['approval', 'single_select', 'multi_select', 'free_text', 'multi_question']),
    prompt: z.string(),
    options: z.array(option).optional(),
    minSelections: count().optional(),
    maxSelections: count().optional(),
    questions: z
      .array(
        z.object({
          id: z.string(),
          prompt: z.string(),
          kind: z.enum(['free_text', 'single_select', 'multi_select']),
          required: z.boolean().optional(),
          options: z.array(option).optional(),
        }),
      )
      .optional(),
    status: z.enum(['pending', 'responded', 'superseded']),
    askedAt: timestamp(),
    answeredAt: timestamp().optional(),
  })
  .describe('The question asked in this round (also announced by a human_input_needed message)');

export const elicitation = z
  .looseObject({
    requestId: z.string().describe('The inputId to answer'),
    message: z.string(),
    requestedSchema: z.record(z.string(), z.unknown()).describe('JSON Schema of the answer'),
    status: z.enum(['pending', 'responded', 'superseded']),
    askedAt: timestamp(),
    answeredAt: timestamp().optional(),
  })
  .describe(
    'A question put as another framework does (scenario unreadable_question), in place of humanInput and announced by an elicitation_request message; answered like a free_text question',
  );

export const round = z
  .looseObject({
    roundId: z.string(),
    index: count(),
    trigger: z.enum(['create', 'resume', 'human_input', 'redirect', 'subagent', 'internal']),
    status: z.enum(ROUND_STATUSES),
    startedAt: timestamp(),
    completedAt: nullableTimestamp(),
    iterations: count(),
    messageCount: count(),
    note: z.string().optional(),
    humanInput: humanInput.optional(),
    elicitation: elicitation.optional(),
  })
  .describe('The spec leaves round objects free-form; these are the fields the emulator sends');

export const sessionStatus = z.object({
  sessionId: z.string(),
  status: z.enum(SESSION_STATUSES),
  message: z.string().describe('The original goal'),
  cost,
  rounds: z.array(round),
  createdAt: timestamp(),
  updatedAt: timestamp(),
  completedAt: nullableTimestamp(),
  error: z.string().nullable(),
  completionReport: z.unknown().describe('null, or {summary, details, rounds, totalCost} once completed'),
});

export const signalResponse = z.object({
  sessionId: z.string(),
  signal: z.enum(['pause', 'resume', 'cancel', 'redirect']),
  roundId: z
    .string()
    .optional()
    .describe('Present only when the signal opened a new round (resume, redirect)'),
  message: z.string(),
});

export const humanInputAck = z.object({
  inputId: z.string(),
  status: z.literal('responded'),
  roundId: z.string().optional().describe('The round the session resumes in'),
  message: z.string(),
});

export const message = z.object({
  roundId: z.string(),
  role: z.enum(['assistant', 'tool', 'user', 'system']),
  content: z.string(),
  name: z.string().optional(),
  reasoning: z.string().optional(),
  reasoningDurationMs: count().optional(),
  toolCallId: z.string().optional(),
  toolCalls: z.array(z.looseObject({})).optional(),
  timestamp: timestamp(),
});

export const messagesResponse = z.object({
  sessionId: z.string(),
  messages: z.array(message).describe('Oldest first, across rounds'),
  pagination: z.object({
    count: count(),
    hasMore: z.boolean(),
    lastRoundId: z.string().nullable().describe('Cursor for the next request'),
  }),
});

export const health = z.object({ ok: z.literal(true), sessions: count() });
