import type { SqlExecutor } from './sql.js';

/** A step of a question's schedule, claimed by exactly one caller across restarts and replicas. */
export interface ClaimedStep {
  sessionId: string;
  inputId: string;
  /** 1-based: reminders 1…max, then max+1 is the escalation. */
  step: number;
}

/**
 * Each waiting question's reminder schedule. Every time is the caller's (an injectable clock), never the
 * database's, so tests move time instead of waiting. A step is claimed by one UPDATE … RETURNING over rows
 * locked FOR UPDATE SKIP LOCKED: two replicas ticking together never send the same reminder, and a restart
 * finds the schedule where it was. Steps go out in order: the next is not claimed while the one before is
 * claimed and not yet delivered, so a replica that dies between claiming and posting (or between the
 * thread reminder and its DM) holds the schedule until its claim is stale and the step is claimed again
 * (`claimUndelivered`) — never skipped, and the poster's keys keep what did go out single.
 */
export interface ReminderRepository {
  /** Starts a schedule for every question still pending that has none. */
  schedule(now: Date, remindAfterMs: number, timeoutMs: number | undefined): Promise<void>;
  /**
   * Due reminder steps (up to `steps`) of questions still pending in sessions waiting on a person, whose
   * previous step has been delivered.
   */
  claimDue(now: Date, steps: number, gapMs: number, limit?: number): Promise<ClaimedStep[]>;
  /** Steps claimed more than `staleMs` ago and never delivered (their replica died): claimed again. */
  claimUndelivered(now: Date, staleMs: number, limit?: number): Promise<ClaimedStep[]>;
  /** Steps still being worked on: their claims are fresh again (only while still undelivered). */
  renewClaims(steps: ClaimedStep[], now: Date): Promise<void>;
  /** The step's messages are all out. */
  markDelivered(sessionId: string, inputId: string, step: number): Promise<void>;
  /** How far a question's schedule has gone: steps claimed, and steps whose messages are all out. */
  progress(sessionId: string, inputId: string): Promise<{ claimed: number; delivered: number } | undefined>;
  /** Questions whose timeout has come, still pending and waiting: each returned once. */
  claimTimedOut(now: Date, limit?: number): Promise<Array<{ sessionId: string; inputId: string }>>;
}

type StepRow = { session_id: string; input_id: string; sent: number };
const toStep = (r: StepRow): ClaimedStep => ({
  sessionId: r.session_id,
  inputId: r.input_id,
  step: Number(r.sent),
});

// A question counts as waiting while its prompt is pending and its session waits on a person.
const WAITING = `JOIN prompts p ON p.session_id = q.session_id AND p.input_id = q.input_id
  JOIN sessions s ON s.session_id = q.session_id
 WHERE p.state = 'pending' AND s.status = 'waiting_human' AND NOT s.finished`;

export class SqlReminderRepository implements ReminderRepository {
  constructor(private readonly sql: SqlExecutor) {}

  async schedule(now: Date, remindAfterMs: number, timeoutMs: number | undefined): Promise<void> {
    await this.sql.query(
      `INSERT INTO question_reminders (session_id, input_id, next_at, timeout_at)
       SELECT p.session_id, p.input_id,
              $1::timestamptz + $2::double precision * interval '1 millisecond',
              $1::timestamptz + $3::double precision * interval '1 millisecond'
         FROM prompts p JOIN sessions s ON s.session_id = p.session_id
        WHERE p.state = 'pending' AND NOT s.finished
       ON CONFLICT (session_id, input_id) DO NOTHING`,
      [now.toISOString(), remindAfterMs, timeoutMs ?? null],
    );
  }

  async claimDue(now: Date, steps: number, gapMs: number, limit = 20): Promise<ClaimedStep[]> {
    // Growing gaps: after the n-th reminder the next waits gap × 2^n.
    const { rows } = await this.sql.query<StepRow>(
      `UPDATE question_reminders r
          SET sent = r.sent + 1, claimed_at = $1::timestamptz,
              next_at = $1::timestamptz + $3::double precision * power(2, r.sent + 1) * interval '1 millisecond'
         FROM (SELECT q.session_id, q.input_id FROM question_reminders q ${WAITING}
                  AND q.next_at <= $1::timestamptz AND q.sent < $2::integer AND q.delivered >= q.sent
                ORDER BY q.next_at LIMIT $4::integer
                FOR UPDATE OF q SKIP LOCKED) due
        WHERE r.session_id = due.session_id AND r.input_id = due.input_id
          AND r.next_at <= $1::timestamptz AND r.sent < $2::integer AND r.delivered >= r.sent
       RETURNING r.session_id, r.input_id, r.sent`,
      [now.toISOString(), steps, gapMs, limit],
    );
    return rows.map(toStep);
  }

  async claimUndelivered(now: Date, staleMs: number, limit = 20): Promise<ClaimedStep[]> {
    const { rows } = await this.sql.query<StepRow>(
      `UPDATE question_reminders r SET claimed_at = $1::timestamptz
         FROM (SELECT q.session_id, q.input_id FROM question_reminders q ${WAITING}
                  AND q.delivered < q.sent
                  AND q.claimed_at < $1::timestamptz - $2::double precision * interval '1 millisecond'
                ORDER BY q.claimed_at LIMIT $3::integer
                FOR UPDATE OF q SKIP LOCKED) stale
        WHERE r.session_id = stale.session_id AND r.input_id = stale.input_id AND r.delivered < r.sent
          AND r.claimed_at < $1::timestamptz - $2::double precision * interval '1 millisecond'
       RETURNING r.session_id, r.input_id, r.sent`,
      [now.toISOString(), staleMs, limit],
    );
    return rows.map(toStep);
  }

  async renewClaims(steps: ClaimedStep[], now: Date): Promise<void> {
    if (steps.length === 0) return;
    await this.sql.query(
      `UPDATE question_reminders r SET claimed_at = $1::timestamptz
         FROM unnest($2::text[], $3::text[], $4::integer[]) AS s(session_id, input_id, step)
        WHERE r.session_id = s.session_id AND r.input_id = s.input_id
          AND r.sent = s.step AND r.delivered < r.sent`,
      [
        now.toISOString(),
        steps.map((s) => s.sessionId),
        steps.map((s) => s.inputId),
        steps.map((s) => s.step),
      ],
    );
  }

  async markDelivered(sessionId: string, inputId: string, step: number): Promise<void> {
    await this.sql.query(
      `UPDATE question_reminders SET delivered = greatest(delivered, $3::integer)
        WHERE session_id = $1 AND input_id = $2`,
      [sessionId, inputId, step],
    );
  }

  async progress(
    sessionId: string,
    inputId: string,
  ): Promise<{ claimed: number; delivered: number } | undefined> {
    const { rows } = await this.sql.query<{ sent: number; delivered: number }>(
      'SELECT sent, delivered FROM question_reminders WHERE session_id = $1 AND input_id = $2',
      [sessionId, inputId],
    );
    const [row] = rows;
    return row ? { claimed: Number(row.sent), delivered: Number(row.delivered) } : undefined;
  }

  async claimTimedOut(now: Date, limit = 20): Promise<Array<{ sessionId: string; inputId: string }>> {
    const { rows } = await this.sql.query<{ session_id: string; input_id: string }>(
      `UPDATE question_reminders r SET timed_out = true
         FROM (SELECT q.session_id, q.input_id FROM question_reminders q ${WAITING}
                  AND q.timeout_at <= $1::timestamptz AND NOT q.timed_out
                ORDER BY q.timeout_at LIMIT $2::integer
                FOR UPDATE OF q SKIP LOCKED) due
        WHERE r.session_id = due.session_id AND r.input_id = due.input_id AND NOT r.timed_out
       RETURNING r.session_id, r.input_id`,
      [now.toISOString(), limit],
    );
    return rows.map((r) => ({ sessionId: r.session_id, inputId: r.input_id }));
  }
}
