import type { EmulatorClock } from '../clock.js';
import type { Message, Round, RoundTrigger, Session, SessionStatus } from '../model.js';
import type { Quirks } from '../quirks.js';
import { newId, type Store } from '../store.js';

// Prices in USD per token, like a mid-size hosted model.
const PROMPT_PRICE = 3 / 1_000_000;
const COMPLETION_PRICE = 15 / 1_000_000;

/**
 * Writes a session's record: its rounds, messages, status and cost, keeping the stream order, updatedAt
 * and the event log consistent. The engine decides what happens; this is how it is written down.
 */
export class SessionRecords {
  constructor(
    readonly store: Store,
    readonly clock: EmulatorClock,
    readonly quirks: Quirks,
  ) {}

  charge(session: Session, tokens: number | undefined, textLength: number): void {
    const total = tokens ?? 400 + Math.ceil(textLength / 4);
    const completion = Math.ceil(total * 0.2);
    const prompt = total - completion;
    const cost = session.cost;
    cost.promptTokens += prompt;
    cost.completionTokens += completion;
    cost.totalTokens += total;
    cost.totalCost = Number(
      (cost.totalCost + prompt * PROMPT_PRICE + completion * COMPLETION_PRICE).toFixed(6),
    );
  }

  /** The round the main line writes to: the newest one, unless subagent rounds opened after it. */
  mainRound(session: Session): Round {
    const round = session.rounds.find((r) => r.roundId === session.mainRoundId);
    if (!round) throw new Error(`session ${session.sessionId} has no round`);
    return round;
  }

  newRound(session: Session, trigger: RoundTrigger): Round {
    const hidden = this.quirks.hiddenEntries;
    if (hidden && trigger !== 'create' && trigger !== 'subagent' && trigger !== 'internal') {
      // The service's bookkeeping between two lines of work: a round with nothing a caller may see.
      const internal = this.newRound(session, 'internal');
      for (const note of ['context carried over', 'tools registered', 'budget checked']) {
        this.append(session, internal, { role: 'system', content: `internal: ${note}`, hidden: true });
      }
      internal.status = 'completed';
      internal.completedAt = this.clock.now();
    }
    const round: Round = {
      roundId: newId('round'),
      index: session.rounds.length,
      trigger,
      status: 'running',
      startedAt: this.clock.now(),
      completedAt: null,
      iterations: 0,
      messages: [],
      createdAtSeq: session.messageSeq,
    };
    session.rounds.push(round);
    if (trigger !== 'subagent' && trigger !== 'internal') session.mainRoundId = round.roundId;
    session.updatedAt = this.clock.now();
    if (hidden && trigger !== 'internal') {
      this.append(session, round, {
        role: 'system',
        content: 'internal: round context loaded',
        hidden: true,
      });
    }
    return round;
  }

  append(session: Session, round: Round, message: Omit<Message, 'roundId' | 'timestamp' | 'seq'>): void {
    const now = this.clock.now();
    round.messages.push({ ...message, roundId: round.roundId, timestamp: now, seq: ++session.messageSeq });
    session.updatedAt = now;
    if (message.hidden) return;
    this.store.record({
      virtualAt: now,
      sessionId: session.sessionId,
      type: 'message',
      roundId: round.roundId,
      // A caller numbers what it can see: positions count visible messages only.
      position: round.messages.filter((m) => !m.hidden).length - 1,
    });
  }

  setStatus(session: Session, status: SessionStatus): void {
    const now = this.clock.now();
    session.status = status;
    session.statusSince = now;
    session.updatedAt = now;
    this.store.record({ virtualAt: now, sessionId: session.sessionId, type: 'status', status });
  }

  openSubagents(session: Session): Round[] {
    return session.rounds.filter((r) => r.trigger === 'subagent' && r.completedAt === null);
  }
}
