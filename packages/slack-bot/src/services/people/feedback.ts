import { escapeMrkdwn } from '../../blocks/text.js';
import type { Logger } from '../../logger.js';
import type { FeedbackRepository, FeedbackValue } from '../../store/feedback.js';
import type { SessionRepository } from '../../store/sessions.js';
import type { BotMetrics } from '../ops/metrics.js';
import type { Outcome } from '../outcome.js';

/** A press of 👍/👎 under a session's report: recorded (store and /metrics), acknowledged privately. */
export class FeedbackService {
  constructor(
    private readonly deps: {
      sessions: Pick<SessionRepository, 'findByThread'>;
      feedback: Pick<FeedbackRepository, 'record'>;
      metrics: BotMetrics;
      logger: Logger;
    },
  ) {}

  /** The report is in the session's thread: the thread says which session it was. */
  async record(press: {
    channelId: string | undefined;
    threadTs: string | undefined;
    userId: string;
    value: string | undefined;
  }): Promise<Outcome<{ message: string }>> {
    const value: FeedbackValue | undefined =
      press.value === 'good' || press.value === 'bad' ? press.value : undefined;
    if (!value) return { ok: false, message: `Unknown feedback "${escapeMrkdwn(press.value ?? '')}".` };
    const session =
      press.channelId && press.threadTs
        ? await this.deps.sessions.findByThread(press.channelId, press.threadTs)
        : undefined;
    if (!session) return { ok: false, message: 'This report’s session is not known here any more.' };
    await this.deps.feedback.record(session.sessionId, press.userId, value);
    this.deps.metrics.feedback.inc({ value });
    this.deps.logger.info({ sessionId: session.sessionId, value }, 'feedback on a session report');
    return {
      ok: true,
      message:
        value === 'good'
          ? 'Thanks — noted 👍'
          : 'Thanks — noted 👎. A reply in the thread can say what went wrong.',
    };
  }
}
