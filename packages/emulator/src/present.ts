import type { Message, Round, Session } from './model.js';

export type TimestampFormat = 'iso' | 'epoch_ms' | 'epoch_s' | 'firestore';
export type TerminalSpelling = 'status' | 'polling';

export interface PresentOptions {
  timestamps: TimestampFormat;
  terminalSpelling: TerminalSpelling;
}

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

// The spec names the terminal statuses two ways; `polling` answers with the polling guidance's names.
const POLLING_SPELLING: Record<string, string> = { completed: 'complete', error: 'failed' };

export function presentStatus(status: string, options: PresentOptions): string {
  return options.terminalSpelling === 'polling' ? (POLLING_SPELLING[status] ?? status) : status;
}

export function presentRound(round: Round, options: PresentOptions): Record<string, unknown> {
  const t = (ms: number | null) => (ms === null ? null : formatTime(ms, options.timestamps));
  const input = round.humanInput;
  return {
    roundId: round.roundId,
    index: round.index,
    trigger: round.trigger,
    status: round.status,
    startedAt: t(round.startedAt),
    completedAt: t(round.completedAt),
    iterations: round.iterations,
    messageCount: round.messages.length,
    ...(round.note ? { note: round.note } : {}),
    ...(input
      ? {
          humanInput: {
            ...input.request,
            status: input.status,
            askedAt: t(input.askedAt),
            ...(input.answeredAt !== undefined ? { answeredAt: t(input.answeredAt) } : {}),
          },
        }
      : {}),
  };
}

export function presentSession(session: Session, options: PresentOptions): Record<string, unknown> {
  const t = (ms: number | null) => (ms === null ? null : formatTime(ms, options.timestamps));
  return {
    sessionId: session.sessionId,
    status: presentStatus(session.status, options),
    message: session.goal,
    cost: { ...session.cost },
    rounds: session.rounds.map((r) => presentRound(r, options)),
    createdAt: t(session.createdAt),
    updatedAt: t(session.updatedAt),
    completedAt: t(session.completedAt),
    error: session.error,
    completionReport: session.completionReport,
  };
}

export function presentMessage(message: Message, options: PresentOptions): Record<string, unknown> {
  const { timestamp, ...rest } = message;
  return { ...rest, timestamp: formatTime(timestamp, options.timestamps) };
}
