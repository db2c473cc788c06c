import { boundedCache } from '../../bounded-cache.js';
import type { Logger } from '../../logger.js';
import type { EventLog } from '../../store/events.js';
import type { SessionRepository } from '../../store/sessions.js';
import type { AgentSessions } from '../slack-out/agent-surface/index.js';
import type { Notifier } from '../slack-out/thread/index.js';
import type { SteeringService } from './steering.js';

/** Slack's `agent_session_stopped`: someone clicked the Stop button of a session's thread. */
export interface StopClick {
  /** The delivery's event_id: Slack's retries carry the same. */
  eventId: string;
  channelId: string;
  threadTs: string;
  userId: string;
}

/** Why the service was asked to cancel: the agent and the audit see it. */
export const STOP_REASON = 'Stopped with Slack’s Stop button';

/**
 * Slack's Stop button cancels the session through the card's Cancel path: the click is claimed once
 * (replicas and retries agree), who may act is checked, the service is asked, the audit records it, and
 * the thread says "⏹ stopped by …". Slack leaves the session's status to the app: a cancel closes it; a
 * refused or failed Stop puts back what the session is (processing, as it works on) and tells the person
 * privately. Under approvers-only, Stop is a cancel (steering), never an answer to a waiting approval.
 * Two Stops of one session (two people, or a double click delivered as two events) landing on two replicas
 * send one cancel: once the clicker is allowed, the session's stop is claimed in the store
 * (`stop:<session>`, one row for all replicas); the loser sends nothing, and leaves Slack's status to the
 * winner. A cancel the service refuses releases the claim, so a later Stop tries again.
 */
export class StopService {
  /** Clicks being handled (a session and who clicked): a second click of the same person waits for none. */
  readonly #clicking = new Set<string>();
  /** Sessions this replica cancelled by Stop: a later click only tells Slack again that it is over. */
  /** Sessions this replica stopped (the oldest forgotten first: they are long over). */
  readonly #stopped = boundedCache<string, true>({ max: 10_000 });

  constructor(
    private readonly deps: {
      events: Pick<EventLog, 'markProcessed' | 'unmark'>;
      sessions: Pick<SessionRepository, 'findByThread'>;
      steering: Pick<SteeringService, 'signal'>;
      agentSessions: Pick<AgentSessions, 'status'>;
      notifier: Pick<Notifier, 'tell'>;
      logger: Pick<Logger, 'info' | 'debug'>;
    },
  ) {}

  /** The session's stop, claimed once across replicas and Slack's retries. */
  #claim(sessionId: string): { take(): Promise<boolean>; release(): Promise<void> } {
    const key = `stop:${sessionId}`;
    return {
      take: () => this.deps.events.markProcessed(key),
      release: () => this.deps.events.unmark(key),
    };
  }

  async stop(click: StopClick): Promise<void> {
    const { events, sessions, steering, agentSessions, notifier, logger } = this.deps;
    if (!(await events.markProcessed(click.eventId))) return;
    const session = await sessions.findByThread(click.channelId, click.threadTs);
    // Not one of ours (another app's session in the thread, or one started before the bot knew it).
    if (!session) {
      logger.debug({ channel: click.channelId, thread: click.threadTs }, 'a Stop for no session of ours');
      return;
    }
    const { sessionId } = session;
    if (session.finished || this.#stopped.has(sessionId)) {
      // Over already: Slack is told so again (it may still show it working).
      agentSessions.status(sessionId, session.finished ? session.status : 'cancelled', { force: true });
      return;
    }
    const clicking = `${sessionId} ${click.userId}`;
    if (this.#clicking.has(clicking)) return;
    this.#clicking.add(clicking);
    const result = await steering
      .signal(
        sessionId,
        click.userId,
        'cancel',
        { reason: STOP_REASON },
        // The button is in the session's own thread: whoever clicked it is looking at the session.
        { seenIn: click.channelId, via: 'stop', claim: this.#claim(sessionId) },
      )
      .finally(() => this.#clicking.delete(clicking));
    if (result.ok && 'claimed' in result) {
      // Another replica (or an earlier click) holds the stop: its cancel, and what it tells Slack (closed,
      // or processing again if the service refused), are the ones.
      logger.debug({ sessionId, userId: click.userId }, 'a Stop whose session another click is stopping');
      return;
    }
    if (result.ok) {
      this.#stopped.set(sessionId, true);
      agentSessions.status(sessionId, 'cancelled', { force: true });
      return;
    }
    logger.info({ sessionId, userId: click.userId }, 'a Stop was refused: the session goes on');
    agentSessions.status(sessionId, session.status, { force: true });
    await notifier.tell(click.channelId, click.userId, `⚠️ ${result.message} The session goes on.`);
  }
}
