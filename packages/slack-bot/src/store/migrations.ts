import type { SqlClient } from './sql.js';

/**
 * Append only: a migration that has run is never edited; a change is a new entry. A database records
 * each migration by its position (`schema_migrations.version`), so an entry's comment, which names the
 * tables it makes or changes, may be reworded freely; its place in the list may not.
 */
export const MIGRATIONS: readonly string[] = [
  // The first schema: sessions, their prompts and posts, the follower's cursors, leases, Slack events seen.
  `CREATE TABLE sessions (
     session_id   text PRIMARY KEY,
     channel_id   text NOT NULL,
     card_ts      text,
     started_by   text NOT NULL,
     goal         text NOT NULL,
     status       text NOT NULL DEFAULT 'queued',
     budget       double precision,
     finished     boolean NOT NULL DEFAULT false,
     created_at   timestamptz NOT NULL DEFAULT now(),
     updated_at   timestamptz NOT NULL DEFAULT now()
   );
   CREATE INDEX sessions_channel ON sessions (channel_id) WHERE NOT finished;
   CREATE INDEX sessions_started_by ON sessions (started_by);
   CREATE TABLE prompts (
     session_id   text NOT NULL REFERENCES sessions ON DELETE CASCADE,
     input_id     text NOT NULL,
     channel_id   text NOT NULL,
     message_ts   text,
     request      jsonb NOT NULL,
     state        text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'answering', 'answered')),
     answered_by  text,
     claimed_at   timestamptz,
     answered_at  timestamptz,
     answer       jsonb,
     PRIMARY KEY (session_id, input_id)
   );
   CREATE TABLE posted_messages (
     session_id   text NOT NULL,
     key          text NOT NULL,
     ts           text,
     started_at   timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (session_id, key)
   );
   CREATE TABLE cursors (
     session_id   text PRIMARY KEY,
     state        jsonb NOT NULL,
     updated_at   timestamptz NOT NULL DEFAULT now()
   );
   CREATE TABLE leases (
     session_id   text PRIMARY KEY,
     owner        text NOT NULL,
     expires_at   timestamptz NOT NULL
   );
   CREATE TABLE processed_events (
     event_id     text PRIMARY KEY,
     received_at  timestamptz NOT NULL DEFAULT now()
   );`,
  // prompts.created_at: when a question was posted.
  `ALTER TABLE prompts ADD COLUMN created_at timestamptz NOT NULL DEFAULT now();`,
  // sessions.poked_at: a poke left for the replica that follows the session.
  `ALTER TABLE sessions ADD COLUMN poked_at timestamptz;`,
  // replicas: each replica and when it was last seen (the live ones share the leases).
  `CREATE TABLE replicas (
     owner    text PRIMARY KEY,
     seen_at  timestamptz NOT NULL
   );`,
  // prompts.ref_key: a prompt whose ref is too long for a block_id or value is found by this key instead.
  `ALTER TABLE prompts ADD COLUMN ref_key text;
   CREATE INDEX prompts_ref_key ON prompts (ref_key);`,
  // audit_log: every human action on a session, append-only (pruned by age only).
  `CREATE TABLE IF NOT EXISTS audit_log (
     id           bigserial PRIMARY KEY,
     at           timestamptz NOT NULL DEFAULT now(),
     session_id   text NOT NULL,
     input_id     text,
     action       text NOT NULL,
     user_id      text NOT NULL,
     team_id      text,
     channel_id   text,
     thread_ts    text,
     detail       jsonb,
     outcome      text NOT NULL,
     http_status  integer,
     request_id   text
   );
   CREATE INDEX IF NOT EXISTS audit_log_session ON audit_log (session_id, at);
   CREATE INDEX IF NOT EXISTS audit_log_at ON audit_log (at);`,
  // question_reminders: each waiting question's reminder schedule; a step is claimed by one replica, once.
  `CREATE TABLE IF NOT EXISTS question_reminders (
     session_id   text NOT NULL,
     input_id     text NOT NULL,
     sent         integer NOT NULL DEFAULT 0,
     next_at      timestamptz NOT NULL,
     timeout_at   timestamptz,
     timed_out    boolean NOT NULL DEFAULT false,
     delivered    integer NOT NULL DEFAULT 0,
     claimed_at   timestamptz,
     PRIMARY KEY (session_id, input_id)
   );
   CREATE INDEX IF NOT EXISTS question_reminders_next ON question_reminders (next_at);`,
  // sessions.thread_ts and origin: a conversational session, started by a mention or a DM, the session's
  // thread is the one the mention was in (the card is a reply there), and the card says where it came from.
  `ALTER TABLE sessions ADD COLUMN thread_ts text;
   ALTER TABLE sessions ADD COLUMN origin text;
   CREATE INDEX sessions_thread ON sessions (channel_id, thread_ts);`,
  // session_feedback: 👍/👎 under a session's report.
  `CREATE TABLE session_feedback (
     session_id  text NOT NULL,
     user_id     text NOT NULL,
     value       text NOT NULL CHECK (value IN ('good', 'bad')),
     at          timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (session_id, user_id)
   );`,
  // posted_messages.body: a batched message is recorded with what it says, so a crash after the follower
  // moved on (the handler returned before the post was sent) still posts it; found again by its pending row.
  `ALTER TABLE posted_messages ADD COLUMN body text;
   CREATE INDEX posted_messages_pending ON posted_messages (session_id) WHERE ts IS NULL AND body IS NOT NULL;`,
  // slack_budgets: Slack's limits shared by every replica: a token bucket per limit.
  `CREATE TABLE slack_budgets (
     key          text PRIMARY KEY,
     tokens       double precision NOT NULL,
     refilled_at  timestamptz NOT NULL,
     paused_until timestamptz NOT NULL DEFAULT 'epoch'
   );`,
  // channel_settings: a channel's defaults for new sessions, set by an approver with /agent settings.
  `CREATE TABLE channel_settings (
     channel_id     text PRIMARY KEY,
     budget         double precision,
     max_iterations integer,
     context        jsonb,
     updated_by     text NOT NULL,
     updated_at     timestamptz NOT NULL DEFAULT now()
   );`,
  // session_streams: each session's streaming messages, one per round (a continuation past Slack's 12,000
  // characters): its ts, what it holds, its tasks, and an append whose answer a crash may have lost.
  `CREATE TABLE IF NOT EXISTS session_streams (
     session_id   text NOT NULL,
     seq          integer NOT NULL,
     round_id     text,
     ts           text,
     state        text NOT NULL DEFAULT 'starting' CHECK (state IN ('starting', 'open', 'stopped')),
     chars        integer NOT NULL DEFAULT 0,
     tasks        jsonb NOT NULL DEFAULT '{}',
     in_flight    jsonb,
     started_at   timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (session_id, seq)
   );`,
  // service_keys, session_key_notices and sessions.key_ref: Agent Session Service keys per workspace or
  // person, encrypted (never plain text); each session records the slot whose key it runs under (a reference,
  // never the key), and the notice that its key was removed or rejected is said once per linked key.
  `CREATE TABLE IF NOT EXISTS service_keys (
     ref          text PRIMARY KEY,
     team_id      text NOT NULL,
     user_id      text,
     ciphertext   text NOT NULL,
     key_id       text NOT NULL,
     hint         text NOT NULL,
     linked_by    text NOT NULL,
     linked_at    timestamptz NOT NULL DEFAULT now(),
     version      text NOT NULL
   );
   CREATE TABLE IF NOT EXISTS session_key_notices (
     session_id   text NOT NULL,
     version      text NOT NULL,
     reason       text NOT NULL,
     at           timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (session_id, version)
   );
   ALTER TABLE sessions ADD COLUMN IF NOT EXISTS key_ref text;`,
  // slack_installations, oauth_states and the sessions' workspace columns: installations from Slack's OAuth
  // flow, the install flow's one-use states, and each session's workspace (isolation) and whether it is still
  // followed after an uninstall.
  `CREATE TABLE slack_installations (
     key              text PRIMARY KEY,
     team_id          text,
     enterprise_id    text,
     is_enterprise    boolean NOT NULL DEFAULT false,
     bot_user_id      text,
     bot_expires_at   timestamptz,
     installation     jsonb NOT NULL,
     refreshed        integer NOT NULL DEFAULT 0,
     installed_at     timestamptz NOT NULL DEFAULT now(),
     updated_at       timestamptz NOT NULL DEFAULT now()
   );
   CREATE TABLE oauth_states (
     state        text PRIMARY KEY,
     options      jsonb NOT NULL,
     expires_at   timestamptz NOT NULL
   );
   ALTER TABLE sessions ADD COLUMN team_id text;
   ALTER TABLE sessions ADD COLUMN enterprise_id text;
   ALTER TABLE sessions ADD COLUMN workspace text;
   ALTER TABLE sessions ADD COLUMN detached_at timestamptz;
   CREATE INDEX sessions_workspace ON sessions (workspace, created_at);`,
  // store_passes and slack_installations' refresh claim: passes over the store recorded once done (after the
  // sealing pass no token is read unsealed), and a token refresh claimed by one replica until a deadline, its
  // Slack call made outside any transaction.
  `CREATE TABLE IF NOT EXISTS store_passes (
     name     text PRIMARY KEY,
     done_at  timestamptz NOT NULL DEFAULT now()
   );
   ALTER TABLE slack_installations ADD COLUMN IF NOT EXISTS refresh_claim text;
   ALTER TABLE slack_installations ADD COLUMN IF NOT EXISTS refresh_claim_until timestamptz;`,
  // channel_settings.workspace: a channel's defaults belong to a workspace, since a Slack Connect channel has
  // one id in both organisations. Existing rows go to the one installation when there is exactly one; the
  // rest stay unplaced ('') until the bot starts and knows its workspace (channel-settings.ts, adoptUnplaced:
  // a single-token bot's own, else dropped with a log line).
  `ALTER TABLE channel_settings ADD COLUMN workspace text NOT NULL DEFAULT '';
   UPDATE channel_settings SET workspace = (SELECT min(key) FROM slack_installations)
     WHERE (SELECT count(*) FROM slack_installations) = 1;
   ALTER TABLE channel_settings DROP CONSTRAINT channel_settings_pkey;
   ALTER TABLE channel_settings ADD PRIMARY KEY (workspace, channel_id);`,
  // workflow_executions: each Workflow Builder step's execution Slack sent, the session it runs or waits for,
  // and its one completion, claimed by one replica at a time (a claim lapses, so a replica that died mid-call
  // is replaced; Slack refuses a second completion of an execution).
  `CREATE TABLE workflow_executions (
     execution_id   text PRIMARY KEY,
     callback_id    text NOT NULL,
     session_id     text,
     channel_id     text,
     user_id        text,
     permalink      text,
     state          text NOT NULL DEFAULT 'starting' CHECK (state IN ('starting', 'waiting', 'done')),
     outcome        text,
     claim          text,
     claim_until    timestamptz,
     team_id        text,
     enterprise_id  text,
     workspace      text,
     created_at     timestamptz NOT NULL DEFAULT now(),
     updated_at     timestamptz NOT NULL DEFAULT now(),
     done_at        timestamptz
   );
   CREATE INDEX workflow_executions_open ON workflow_executions (created_at) WHERE state <> 'done';
   CREATE INDEX workflow_executions_session ON workflow_executions (session_id) WHERE state <> 'done';`,
  // code_channels, sessions.home_channel_id and channel_settings.code_channel: a session's code channel
  // (where its thread's posts go; `codeChannelId` in the records), each step recorded once done; a channel's
  // setting that gives every session one, archived or kept open at its end.
  `ALTER TABLE sessions ADD COLUMN home_channel_id text;
   CREATE INDEX sessions_home_channel ON sessions (home_channel_id) WHERE home_channel_id IS NOT NULL;
   CREATE TABLE code_channels (
     session_id   text PRIMARY KEY REFERENCES sessions ON DELETE CASCADE,
     workspace    text,
     channel_id   text,
     state        text NOT NULL DEFAULT 'wanted' CHECK (state IN ('wanted', 'open', 'thread', 'closed')),
     at_end       text NOT NULL DEFAULT 'archive' CHECK (at_end IN ('archive', 'keep')),
     reason       text,
     canvas_id    text,
     updated_at   timestamptz NOT NULL DEFAULT now()
   );
   ALTER TABLE channel_settings ADD COLUMN code_channel text CHECK (code_channel IN ('archive', 'keep'));`,
  // thread_messages: the messages received as events, per workspace and bounded (thread-messages.ts): a
  // thread's context comes from here first, since Slack may allow one thread read a minute.
  `CREATE TABLE IF NOT EXISTS thread_messages (
     workspace    text NOT NULL,
     channel_id   text NOT NULL,
     thread_ts    text NOT NULL,
     ts           text NOT NULL,
     sort_key     text NOT NULL,
     user_id      text NOT NULL,
     text         text NOT NULL,
     files        jsonb NOT NULL DEFAULT '[]',
     received_at  timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (workspace, channel_id, ts)
   );
   CREATE INDEX IF NOT EXISTS thread_messages_thread ON thread_messages (workspace, channel_id, thread_ts, sort_key);
   CREATE INDEX IF NOT EXISTS thread_messages_age ON thread_messages (workspace, received_at);`,
  // sessions_unfinished (an index): every replica asks each second whether an unfinished session has no
  // lease: only those rows are read.
  `CREATE INDEX IF NOT EXISTS sessions_unfinished ON sessions (created_at) WHERE NOT finished AND detached_at IS NULL;`,
  // recovery_claims and final_cards: a finished session's leftovers (posts recorded and never sent, its final
  // card edit) have no lease owner: the replica holding this claim is the one that sends them
  // (recovery-claims.ts). The final card is recorded until its edit is out, so an edit a short grace or a
  // Slack error left undone is redone.
  `CREATE TABLE IF NOT EXISTS recovery_claims (
     session_id   text PRIMARY KEY REFERENCES sessions ON DELETE CASCADE,
     holder       text NOT NULL,
     expires_at   timestamptz NOT NULL
   );
   CREATE TABLE IF NOT EXISTS final_cards (
     session_id   text PRIMARY KEY REFERENCES sessions ON DELETE CASCADE,
     card         text NOT NULL,
     recorded_at  timestamptz NOT NULL DEFAULT now()
   );`,
  // prompts.carried: a question's post carries the agent's messages still waiting before it (a busy channel):
  // kept here so the prompt's later edits (answered) keep them.
  `ALTER TABLE prompts ADD COLUMN carried jsonb;`,
  // slack_budget_flights: the Slack calls each shared budget's tokens were taken for and not yet answered (by
  // any replica): the bucket holds at most its burst less these. A dead replica's expire (slack-budgets.ts).
  `CREATE TABLE slack_budget_flights (
     key      text NOT NULL,
     id       text NOT NULL,
     taken_at timestamptz NOT NULL,
     PRIMARY KEY (key, id)
   );`,
  // workflow_executions_sweep and _done (indexes): Workflow Builder's sweep reads every open execution page
  // by page in execution id order, and done ones are pruned by age (WORKFLOW_STEP_RETENTION).
  `CREATE INDEX workflow_executions_sweep ON workflow_executions (execution_id) WHERE state <> 'done';
   CREATE INDEX workflow_executions_done ON workflow_executions (done_at) WHERE state = 'done';`,
  // mcp_tokens: MCP hosts act as one Slack person with a personal token made in App Home: only its SHA-256 is
  // kept, bound to the workspace and the person, with an expiry; revoked tokens stay, so a revocation is
  // final.
  `CREATE TABLE mcp_tokens (
     id             text PRIMARY KEY,
     token_hash     text NOT NULL UNIQUE,
     workspace      text NOT NULL,
     team_id        text,
     enterprise_id  text,
     user_id        text NOT NULL,
     hint           text NOT NULL,
     last_client    text,
     created_at     timestamptz NOT NULL DEFAULT now(),
     expires_at     timestamptz NOT NULL,
     last_used_at   timestamptz,
     revoked_at     timestamptz
   );
   CREATE INDEX mcp_tokens_person ON mcp_tokens (workspace, user_id);`,
  // A workflow step its runner is asked to confirm before its session starts: what it asked for, kept
  // until they answer on any replica, and when they confirmed (a start in progress is timed from then).
  `ALTER TABLE workflow_executions DROP CONSTRAINT IF EXISTS workflow_executions_state_check;
   ALTER TABLE workflow_executions ADD CONSTRAINT workflow_executions_state_check
     CHECK (state IN ('confirming', 'starting', 'waiting', 'done'));
   ALTER TABLE workflow_executions ADD COLUMN pending jsonb;
   ALTER TABLE workflow_executions ADD COLUMN confirmed_at timestamptz;`,
];

// Any constant will do, as long as nothing else in the database takes the same advisory lock.
const MIGRATION_LOCK = 72_410_951;

/** Applies what hasn't run, under an advisory lock so replicas starting together don't race. */
export async function migrate(sql: SqlClient): Promise<number> {
  return sql.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const { rows } = await tx.query<{ version: number }>(
      'SELECT coalesce(max(version), 0) AS version FROM schema_migrations',
    );
    const current = Number(rows[0]?.version ?? 0);
    for (let version = current + 1; version <= MIGRATIONS.length; version++) {
      for (const statement of (MIGRATIONS[version - 1] as string)
        .split(/;\s*$/m)
        .map((s) => s.trim())
        .filter(Boolean)) {
        await tx.query(statement);
      }
      await tx.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
    }
    return MIGRATIONS.length - current;
  });
}
