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
  /** Takes a token, leaving `keep`: 0 when taken, else the milliseconds until one may be. */
  take(key: string, rate: BudgetRate, keep?: number): Promise<number>;
  /** Nobody takes from `key` for `ms` (a 429's Retry-After, seen by any replica). */
  pause(key: string, ms: number): Promise<void>;
  /**
   * A call of `key` was just answered: Slack counted it somewhere between its token and now, so a burst
   * that refilled meanwhile (here, not at Slack) keeps at most `burst - 1` tokens.
   */
  spentNow(key: string, rate: BudgetRate): Promise<void>;
}

/** Tokens now: what was left, refilled since, at most a burst. `b` is the row, `$2`/`$3` burst/rate. */
const TOKENS_NOW = `least($2::float8, b.tokens + extract(epoch from clock_timestamp() - b.refilled_at) * $3::float8)`;

export class SqlSlackBudgetRepository implements SlackBudgetRepository {
  constructor(private readonly sql: SqlClient) {}

  async take(key: string, rate: BudgetRate, keep = 0): Promise<number> {
    const params = [key, rate.burst, rate.perSecond, keep];
    const { rows } = await this.sql.query(
      `INSERT INTO slack_budgets AS b (key, tokens, refilled_at, paused_until)
       VALUES ($1, $2::float8 - 1, clock_timestamp(), 'epoch')
       ON CONFLICT (key) DO UPDATE SET tokens = ${TOKENS_NOW} - 1, refilled_at = clock_timestamp()
         WHERE b.paused_until <= clock_timestamp() AND ${TOKENS_NOW} >= 1 + $4::float8
       RETURNING 1`,
      params,
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

  async spentNow(key: string, rate: BudgetRate): Promise<void> {
    await this.sql.query(
      `UPDATE slack_budgets AS b SET tokens = least(${TOKENS_NOW}, $2::float8 - 1), refilled_at = clock_timestamp()
       WHERE b.key = $1`,
      [key, rate.burst, rate.perSecond],
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
