import type { SqlClient } from './sql.js';

export interface BudgetRate {
  perSecond: number;
  burst: number;
}

/**
 * Slack's limits as token buckets in the database, one row per limit (a channel's posts, the workspace's
 * edits), so every replica spends from the same budget. One statement takes a token (the row's lock makes
 * two replicas taking at once take one each, never the same one); a refusal asks once more how long to
 * wait. Time is the database's, so replicas on machines whose clocks differ still agree.
 */
export interface SlackBudgetRepository {
  /**
   * Takes a token, leaving `keep`: 0 when taken, else the milliseconds until one may be. `flight`: the
   * token is for a call Slack counts when it arrives; it is in flight until `landed(key, rate, flight)`.
   */
  take(key: string, rate: BudgetRate, keep?: number, flight?: string): Promise<number>;
  /** Nobody takes from `key` for `ms` (a 429's Retry-After, seen by any replica). */
  pause(key: string, ms: number): Promise<void>;
  /**
   * The call a token was taken for was answered (or failed, or never went): Slack counted it somewhere
   * between its token and now. While calls are in flight, the bucket holds at most the burst minus their
   * number (Slack's stayed full until they came, refilling no further), so no replica is granted a token
   * Slack will not have once they arrive.
   */
  landed(key: string, rate: BudgetRate, flight: string): Promise<void>;
}

/**
 * How long a flight counts when no replica says it landed (its replica died mid-call): well above what a
 * call to Slack takes, and short, since the channel's chatter waits for a full burst meanwhile.
 */
export const FLIGHT_EXPIRY_MS = 15_000;

/** Tokens taken for calls of `$1` not answered yet, by any replica (a dead one's expire). */
const IN_FLIGHT = `(SELECT count(*) FROM slack_budget_flights f WHERE f.key = $1
  AND f.taken_at > clock_timestamp() - ${FLIGHT_EXPIRY_MS} * interval '1 millisecond')`;

/**
 * Tokens now: what was left, refilled since, at most a burst less the calls in flight. `b` is the row,
 * `$1`/`$2`/`$3` key/burst/rate. The ceiling changes only where the row is written (a take, a landing),
 * so it held since `refilled_at`.
 */
const TOKENS_NOW = `least($2::float8 - ${IN_FLIGHT}, b.tokens + extract(epoch from clock_timestamp() - b.refilled_at) * $3::float8)`;

export class SqlSlackBudgetRepository implements SlackBudgetRepository {
  constructor(private readonly sql: SqlClient) {}

  async take(key: string, rate: BudgetRate, keep = 0, flight?: string): Promise<number> {
    const params = [key, rate.burst, rate.perSecond, keep];
    // The flight is recorded by the statement that takes its token, only if it does.
    const { rows } = await this.sql.query(
      `WITH taken AS (
         INSERT INTO slack_budgets AS b (key, tokens, refilled_at, paused_until)
         VALUES ($1, $2::float8 - ${IN_FLIGHT} - 1, clock_timestamp(), 'epoch')
         ON CONFLICT (key) DO UPDATE SET tokens = ${TOKENS_NOW} - 1, refilled_at = clock_timestamp()
           WHERE b.paused_until <= clock_timestamp() AND ${TOKENS_NOW} >= 1 + $4::float8
         RETURNING 1
       ), flown AS (
         INSERT INTO slack_budget_flights (key, id, taken_at)
         SELECT $1, $5::text, clock_timestamp() FROM taken WHERE $5::text IS NOT NULL
       )
       SELECT 1 FROM taken`,
      [...params, flight ?? null],
    );
    if (rows.length > 0) return 0;
    // Refused: how long until a token (a statement of its own, so it sees what the others took).
    const wait = await this.sql.query<{ wait_ms: number | string }>(
      `SELECT greatest(
                extract(epoch from b.paused_until - clock_timestamp()) * 1000,
                (least(1 + $4::float8, $2::float8) - ${TOKENS_NOW}) / $3::float8 * 1000,
                1) AS wait_ms
       FROM slack_budgets b WHERE b.key = $1`,
      params,
    );
    return Math.max(1, Math.ceil(Number(wait.rows[0]?.wait_ms ?? 1000 / rate.perSecond)));
  }

  async landed(key: string, rate: BudgetRate, flight: string): Promise<void> {
    // One statement: the row is refilled to now under the ceiling that held (its flight still counted:
    // every part of a statement sees the flights as they were), then the flight goes, with any expired.
    await this.sql.query(
      `WITH gone AS (
         DELETE FROM slack_budget_flights f WHERE f.key = $1
           AND (f.id = $4 OR f.taken_at <= clock_timestamp() - ${FLIGHT_EXPIRY_MS} * interval '1 millisecond')
       )
       UPDATE slack_budgets AS b SET tokens = ${TOKENS_NOW}, refilled_at = clock_timestamp()
       WHERE b.key = $1`,
      [key, rate.burst, rate.perSecond, flight],
    );
  }

  async pause(key: string, ms: number): Promise<void> {
    await this.sql.query(
      `UPDATE slack_budgets SET paused_until = greatest(paused_until, clock_timestamp() + $2 * interval '1 millisecond'),
         tokens = least(tokens, 1)
       WHERE key = $1`,
      [key, ms],
    );
  }
}
