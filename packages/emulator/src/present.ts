import { elicitationOf } from './agent/elicitation.js';
import type { Message, PendingInput, Round, Session } from './model.js';
import type { Quirks } from './quirks.js';

export type TimestampFormat = 'iso' | 'epoch_ms' | 'epoch_s' | 'firestore';
export type TerminalSpelling = 'status' | 'polling';

export interface PresentOptions {
  timestamps: TimestampFormat;
  terminalSpelling: TerminalSpelling;
  /** Shared with the engine; the admin endpoint can change it on a running emulator. */
  quirks: Quirks;
  /** The emulator's virtual time (`unknown-status` depends on it). */
  now: () => number;
}

/** How long after a session starts running it shows `thinking` instead (`unknown-status`). */
export const THINKING_MS = 3_000;

export function formatTime(ms: number, format: TimestampFormat): unknown {
  switch (format) {
    case 'iso':
      return new Date(ms).toISOString();
    case 'epoch_ms':
      return Math.round(ms);
    case 'epoch_s':
      return Math.floor(ms / 1000);
    case 'firestore':
      return { _seconds: Math.floor(ms / 1000), _nanoseconds: Math.round((ms % 1000) * 1_000_000) };
  }
}

// The quirks change the spec-given choices only where the variables were left at their default, so a
// test that asks for epoch timestamps still gets them in the `EMULATOR_QUIRKS=all` run.
const timestampsOf = (options: PresentOptions): TimestampFormat =>
  options.quirks.firestoreTimestamps && options.timestamps === 'iso' ? 'firestore' : options.timestamps;

/** A timestamp, or null, in the configured format. */
export function presentTime(ms: number | null, options: PresentOptions): unknown {
  return ms === null ? null : formatTime(ms, timestampsOf(options));
}

// The spec names the terminal statuses two ways; `polling` answers with the polling guidance's names.
const POLLING_SPELLING: Record<string, string> = { completed: 'complete', error: 'failed' };

export function presentStatus(status: string, options: PresentOptions): string {
  const polling = options.terminalSpelling === 'polling' || options.quirks.completeSpelling;
  return polling ? (POLLING_SPELLING[status] ?? status) : status;
}

/**
 * The wire shape of a JSON object the emulator answers with, under the quirks: `extra-fields` adds
 * fields no client has heard of (`extra`); `nulls` makes absent `optional` fields null.
 */
export function presentObject(
  object: Record<string, unknown>,
  options: PresentOptions,
  extra: Record<string, unknown>,
  optional: readonly string[] = [],
): Record<string, unknown> {
  const out = options.quirks.extraFields ? { ...object, ...extra } : { ...object };
  if (options.quirks.nulls) for (const field of optional) if (out[field] === undefined) out[field] = null;
  return out;
}

/** A round's question, in the shape it was asked in, with where it stands. */
function presentInput(pending: PendingInput, options: PresentOptions): Record<string, unknown> {
  const t = (ms: number) => presentTime(ms, options);
  return presentObject(
    {
      ...(pending.wire === 'elicitation' ? elicitationOf(pending.request) : pending.request),
      status: pending.status,
      askedAt: t(pending.askedAt),
      ...(pending.answeredAt !== undefined ? { answeredAt: t(pending.answeredAt) } : {}),
    },
    options,
    { channel: 'messages' },
    ['answeredAt'],
  );
}

export function presentRound(round: Round, options: PresentOptions): Record<string, unknown> {
  const t = (ms: number | null) => presentTime(ms, options);
  const input = round.humanInput;
  return presentObject(
    {
      roundId: round.roundId,
      index: round.index,
      trigger: round.trigger,
      status: round.status,
      startedAt: t(round.startedAt),
      completedAt: t(round.completedAt),
      iterations: round.iterations,
      messageCount: round.messages.filter((m) => !m.hidden).length,
      ...(round.note ? { note: round.note } : {}),
      ...(input
        ? { [input.wire === 'elicitation' ? 'elicitation' : 'humanInput']: presentInput(input, options) }
        : {}),
    },
    options,
    { agent: round.trigger === 'subagent' ? 'subagent' : 'main', model: 'emu-agent-1' },
    ['note', 'humanInput'],
  );
}

export function presentSession(session: Session, options: PresentOptions): Record<string, unknown> {
  const t = (ms: number | null) => presentTime(ms, options);
  const thinking =
    options.quirks.unknownStatus &&
    session.status === 'running' &&
    options.now() - session.statusSince < THINKING_MS;
  return presentObject(
    {
      sessionId: session.sessionId,
      status: thinking ? 'thinking' : presentStatus(session.status, options),
      message: session.goal,
      cost: presentObject({ ...session.cost }, options, { currency: 'USD', cachedTokens: 0 }),
      rounds: session.rounds.map((r) => presentRound(r, options)),
      createdAt: t(session.createdAt),
      updatedAt: t(session.updatedAt),
      completedAt: t(session.completedAt),
      error: session.error,
      completionReport: session.completionReport,
    },
    options,
    { integrationId: 'int_emulator', visibility: 'private', metadata: { source: 'emulator' } },
  );
}

const MESSAGE_OPTIONAL = ['name', 'reasoning', 'reasoningDurationMs', 'toolCallId', 'toolCalls'] as const;

export function presentMessage(message: Message, options: PresentOptions): Record<string, unknown> {
  const { timestamp, seq: _seq, hidden: _hidden, ...rest } = message;
  const toolCallOnly =
    options.quirks.toolCallContentNull && rest.role === 'assistant' && (rest.toolCalls?.length ?? 0) > 0;
  return presentObject(
    { ...rest, ...(toolCallOnly ? { content: null } : {}), timestamp: presentTime(timestamp, options) },
    options,
    { model: 'emu-agent-1', metadata: { visibility: 'public' } },
    MESSAGE_OPTIONAL,
  );
}
