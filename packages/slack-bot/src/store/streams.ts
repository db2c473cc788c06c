import type { SqlClient } from './sql.js';

/** An append (or a start carrying content) sent whose answer is not recorded yet: its keys and pieces. */
export interface StreamInFlight {
  keys: string[];
  /** What it carried (JSON), to look for in the message after a crash. */
  pieces: unknown[];
}

/** One of a session's streaming messages. */
export interface StreamRecord {
  sessionId: string;
  /** 1, 2, …: the session's streams in order. */
  seq: number;
  roundId: string | null;
  /** Slack's ts; null while its start is unanswered. */
  ts: string | null;
  state: 'starting' | 'open' | 'stopped';
  /** The characters it shows (Slack takes 12,000). */
  chars: number;
  /** Its tasks as last shown, by id (JSON). */
  tasks: Record<string, { title: string; status: string }>;
  inFlight: StreamInFlight | null;
}

/**
 * The session's streaming messages, so each agent message is in exactly one of them once: a stream is
 * recorded before it is started and its ts after; an append is recorded as in flight before it is sent,
 * and its keys get the stream's ts (in `posted_messages`, as every post's keys do) in one transaction with
 * the stream's new state once Slack answered.
 */
export interface StreamRepository {
  /** The session's latest stream. */
  latest(sessionId: string): Promise<StreamRecord | undefined>;
  /** Whether a stream of the session was for this round already (rounds that interleave share one). */
  hadRound(sessionId: string, roundId: string): Promise<boolean>;
  /** Before chat.startStream: the stream, with what its start carries in flight. */
  begin(sessionId: string, seq: number, roundId: string | null, inFlight: StreamInFlight): Promise<void>;
  /** Before chat.appendStream: what it carries. */
  intend(sessionId: string, seq: number, inFlight: StreamInFlight): Promise<void>;
  /** Slack took a start or an append: its keys are posted at `ts`, the stream holds `chars`, its tasks. */
  commit(
    sessionId: string,
    seq: number,
    done: { ts: string; keys: string[]; chars: number; tasks: StreamRecord['tasks'] },
  ): Promise<void>;
  /** What was in flight did not get in (Slack refused it, or a crash look-up did not find it). */
  clearInFlight(sessionId: string, seq: number): Promise<void>;
  /** A start that never made a message: the stream is dropped. */
  forget(sessionId: string, seq: number): Promise<void>;
  stopped(sessionId: string, seq: number): Promise<void>;
  /** The keys a stream holds, in the order they were recorded (its metadata when it stops). */
  keysOf(sessionId: string, ts: string): Promise<string[]>;
  /** Sessions with a stream left open or unanswered (crash recovery at start). */
  unsettledSessions(limit: number): Promise<string[]>;
}

interface Row {
  session_id: string;
  seq: number;
  round_id: string | null;
  ts: string | null;
  state: StreamRecord['state'];
  chars: number;
  tasks: StreamRecord['tasks'] | string;
  in_flight: StreamInFlight | string | null;
}

const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);

export class SqlStreamRepository implements StreamRepository {
  constructor(private readonly sql: SqlClient) {}

  async latest(sessionId: string): Promise<StreamRecord | undefined> {
    const { rows } = await this.sql.query<Row>(
      'SELECT * FROM session_streams WHERE session_id = $1 ORDER BY seq DESC LIMIT 1',
      [sessionId],
    );
    const r = rows[0];
    if (!r) return undefined;
    return {
      sessionId: r.session_id,
      seq: Number(r.seq),
      roundId: r.round_id,
      ts: r.ts,
      state: r.state,
      chars: Number(r.chars),
      tasks: json(r.tasks),
      inFlight: r.in_flight === null ? null : json(r.in_flight),
    };
  }

  async hadRound(sessionId: string, roundId: string): Promise<boolean> {
    const { rows } = await this.sql.query(
      'SELECT 1 FROM session_streams WHERE session_id = $1 AND round_id = $2 LIMIT 1',
      [sessionId, roundId],
    );
    return rows.length > 0;
  }

  async begin(
    sessionId: string,
    seq: number,
    roundId: string | null,
    inFlight: StreamInFlight,
  ): Promise<void> {
    await this.sql.query(
      'INSERT INTO session_streams (session_id, seq, round_id, in_flight) VALUES ($1, $2, $3, $4)',
      [sessionId, seq, roundId, JSON.stringify(inFlight)],
    );
  }

  async intend(sessionId: string, seq: number, inFlight: StreamInFlight): Promise<void> {
    await this.sql.query('UPDATE session_streams SET in_flight = $3 WHERE session_id = $1 AND seq = $2', [
      sessionId,
      seq,
      JSON.stringify(inFlight),
    ]);
  }

  commit(
    sessionId: string,
    seq: number,
    done: { ts: string; keys: string[]; chars: number; tasks: StreamRecord['tasks'] },
  ): Promise<void> {
    return this.sql.transaction(async (tx) => {
      await tx.query(
        `UPDATE session_streams SET ts = $3, state = 'open', chars = $4, tasks = $5, in_flight = NULL
          WHERE session_id = $1 AND seq = $2`,
        [sessionId, seq, done.ts, done.chars, JSON.stringify(done.tasks)],
      );
      // The keys' bodies go: what Slack shows is the record from now on (as posts.finish does).
      await tx.query(
        'UPDATE posted_messages SET ts = $3, body = NULL WHERE session_id = $1 AND key = ANY($2::text[])',
        [sessionId, done.keys, done.ts],
      );
    });
  }

  async clearInFlight(sessionId: string, seq: number): Promise<void> {
    await this.sql.query('UPDATE session_streams SET in_flight = NULL WHERE session_id = $1 AND seq = $2', [
      sessionId,
      seq,
    ]);
  }

  async forget(sessionId: string, seq: number): Promise<void> {
    await this.sql.query('DELETE FROM session_streams WHERE session_id = $1 AND seq = $2 AND ts IS NULL', [
      sessionId,
      seq,
    ]);
  }

  async stopped(sessionId: string, seq: number): Promise<void> {
    await this.sql.query(
      "UPDATE session_streams SET state = 'stopped', in_flight = NULL WHERE session_id = $1 AND seq = $2",
      [sessionId, seq],
    );
  }

  async keysOf(sessionId: string, ts: string): Promise<string[]> {
    const { rows } = await this.sql.query<{ key: string }>(
      'SELECT key FROM posted_messages WHERE session_id = $1 AND ts = $2 ORDER BY started_at, key',
      [sessionId, ts],
    );
    return rows.map((r) => r.key);
  }

  async unsettledSessions(limit: number): Promise<string[]> {
    const { rows } = await this.sql.query<{ session_id: string }>(
      "SELECT DISTINCT session_id FROM session_streams WHERE state <> 'stopped' LIMIT $1",
      [limit],
    );
    return rows.map((r) => r.session_id);
  }
}
