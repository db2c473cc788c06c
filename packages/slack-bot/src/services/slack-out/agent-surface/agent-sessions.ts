import type { Logger } from '../../../logger.js';
import type { SessionRecord } from '../../../store/records.js';
import type { SessionRepository } from '../../../store/sessions.js';
import { cacheKey, currentWorkspace } from '../../../workspace.js';
import {
  type OutboundQueue,
  rateLimitedRetryAfterMs,
  type SlackClient,
  slackErrorCode,
} from '../outbound/index.js';
import { threadPlace } from '../thread/index.js';
import { type AgentSessionStatus, agentStatusOf, sessionTitle } from './agent-status.js';
import { isFeatureMissing, isTransient, type SurfaceChoice } from './surface.js';

/** The warning setStatus carries while the app doesn't subscribe to `agent_session_stopped`. */
export const MISSING_STOP_SUBSCRIPTION = 'missing_agent_session_stopped_event_subscription';

interface Entry {
  /** The status Slack should show, the latest asked for. */
  desired?: AgentSessionStatus;
  /** What Slack last accepted. */
  sent?: AgentSessionStatus;
  /** What was last tried, accepted or refused for good: not tried again until something changes. */
  tried?: AgentSessionStatus;
  /** Send `desired` even when Slack was told it already (after a Stop, Slack's view may differ). */
  force: boolean;
  title?: string;
  /** A call of this session is queued or in flight: at most one at a time, so they can't overtake. */
  busy: boolean;
  /** Slack refused this session for good (a channel left, a thread gone): nothing more is sent. */
  dead: boolean;
  /** Slack refused `initiator_user_id` once (not a member of the channel): it goes without from then on. */
  noInitiator: boolean;
  /** Slack was unreachable, busy or down: tried again after RETRY_MS, whatever else changes. */
  retryLater?: boolean;
}

/**
 * What Slack answers setStatus in a channel the bot is not a member of (`not_in_channel`; the agent
 * platform has also been seen to say `not_authorized` there): the status and Stop need the bot inside.
 */
const NOT_MEMBER = new Set(['not_in_channel', 'not_authorized']);

/** After a transient failure (5xx, `fatal_error`, a lost connection): a person may wait on this status. */
const RETRY_MS = 5_000;

type AgentsApi = { agents: { sessions: Pick<SlackClient['agents']['sessions'], 'setStatus' | 'rename'> } };

/**
 * A session as Slack's own agent session: the status of its thread follows the service's, titled
 * with the goal and started by who started it; renamed when a redirect changes its direction. Calls go
 * through the outbound queue in their own limit (Tier 3), so they never hold the channel's posts; each
 * session has at most one call out at a time, and what it sends is the latest status asked for (changes
 * made meanwhile fold into it). Nothing is sent on the classic surface; a refusal that means the feature
 * is missing turns the surface classic (under `auto`).
 */
export class AgentSessions {
  readonly #entries = new Map<string, Entry>();
  /** Sessions this replica follows (from resync to forget or closed): resynced when the surface comes back. */
  readonly #followed = new Set<string>();
  #warned = false;
  /** Channels (per workspace and starter) whose "invite me" was said: said once. */
  readonly #toldNotMember = new Set<string>();

  constructor(
    private readonly deps: {
      slack: AgentsApi;
      outbound: Pick<OutboundQueue, 'run'>;
      surface: SurfaceChoice;
      sessions: Pick<SessionRepository, 'get'>;
      logger: Pick<Logger, 'warn' | 'info' | 'debug'>;
      /**
       * The service's status at the follower's last poll (its saved state), which the session's record may
       * not have caught up with when a bot died: what a resync sends, else the record's.
       */
      lastPolled?: (sessionId: string) => Promise<string | null | undefined>;
      /** Runs `fn` as the session's workspace's work (SessionWorkspaces.run); without it, as the caller's. */
      runAs?: (sessionId: string, fn: () => Promise<void>) => Promise<void>;
      /**
       * Slack refused the status because the bot is not in the session's channel: the starter is told, once
       * per channel, privately, how to get the status and Stop (invite the bot).
       */
      notMember?: (session: SessionRecord) => Promise<unknown>;
    },
  ) {}

  /** The service's status changed (or a session started): Slack is told, mapped, once its turn comes. */
  status(sessionId: string, serviceStatus: string, options: { force?: boolean } = {}): void {
    const desired = agentStatusOf(serviceStatus);
    if (desired === 'closed') this.#followed.delete(sessionId);
    if (this.deps.surface.current() !== 'agent') return;
    const entry = this.#entry(sessionId);
    entry.desired = desired;
    if (options.force) entry.force = true;
    this.#schedule(sessionId, entry);
  }

  /**
   * This replica follows the session from now on (it started, or took the session over): Slack's status
   * may be stale (changed while no replica followed it, or by a replica that died mid-call), so the
   * service's status at the last poll is sent once, even if this replica told Slack the same before. A
   * change the first poll finds folds into it: one call, the latest status.
   */
  resync(sessionId: string): void {
    this.#followed.add(sessionId);
    this.#asItsWorkspace(sessionId, () => this.#resyncNow(sessionId));
  }

  #resyncNow(sessionId: string): void {
    if (this.deps.surface.current() !== 'agent') return;
    void Promise.all([this.deps.sessions.get(sessionId), this.deps.lastPolled?.(sessionId)])
      .then(([session, polled]) => {
        if (!session || session.finished) return;
        // A status the first poll brought meanwhile is newer than the store's: only forced again.
        const entry = this.#entries.get(sessionId);
        if (entry?.desired !== undefined) {
          entry.force = true;
          this.#schedule(sessionId, entry);
        } else this.status(sessionId, polled ?? session.status, { force: true });
      })
      .catch((error: unknown) =>
        this.deps.logger.warn({ err: error, sessionId }, 'could not read a session to set its agent status'),
      );
  }

  /**
   * `fn` as the work of the session's workspace: its surface is that workspace's, and its calls go with
   * that workspace's token, whoever asked (the lease keeper's sweep runs as no workspace).
   */
  #asItsWorkspace(sessionId: string, fn: () => void): void {
    const { runAs } = this.deps;
    if (!runAs) {
      fn();
      return;
    }
    void runAs(sessionId, async () => fn()).catch((error: unknown) =>
      this.deps.logger.warn({ err: error, sessionId }, 'could not tell which workspace a session is in'),
    );
  }

  /** Another replica follows the session now: what this one knew of it is stale when it comes back. */
  forget(sessionId: string): void {
    this.#followed.delete(sessionId);
    const entry = this.#entries.get(sessionId);
    if (entry && !entry.busy) this.#entries.delete(sessionId);
  }

  /**
   * The surface is agent again in a workspace (auto's retry; its key, or undefined for work that names
   * none and the one workspace of a single-token bot): its sessions followed here get their status once.
   */
  resyncAll(workspace?: string): void {
    for (const sessionId of this.#followed)
      this.#asItsWorkspace(sessionId, () => {
        const its = currentWorkspace();
        if (workspace === undefined ? !its?.isolated : its?.key === workspace) this.#resyncNow(sessionId);
      });
  }

  /** A redirect changed the agent's direction: the session's title says the new one. */
  rename(sessionId: string, direction: string): void {
    if (this.deps.surface.current() !== 'agent') return;
    const entry = this.#entry(sessionId);
    entry.title = sessionTitle(direction);
    this.#schedule(sessionId, entry);
  }

  /** What Slack was last told of a session (tests, and the Stop path). */
  shown(sessionId: string): AgentSessionStatus | undefined {
    return this.#entries.get(sessionId)?.sent;
  }

  #entry(sessionId: string): Entry {
    let entry = this.#entries.get(sessionId);
    if (!entry) {
      entry = { force: false, busy: false, dead: false, noInitiator: false };
      this.#entries.set(sessionId, entry);
    }
    return entry;
  }

  #schedule(sessionId: string, entry: Entry): void {
    if (entry.busy || entry.dead) return;
    entry.busy = true;
    void this.#queue(sessionId, entry)
      .catch((error: unknown) => {
        // Whatever failed (the store, the queue, Slack) fails the same way if asked again at once: the
        // session is tried again after RETRY_MS, never in a loop that logs as fast as it can fail.
        entry.retryLater = true;
        this.deps.logger.warn({ err: error, sessionId }, "could not set a session's agent status");
      })
      .finally(() => {
        entry.busy = false;
        if (entry.dead || this.deps.surface.current() !== 'agent') return;
        if (entry.retryLater) {
          entry.retryLater = false;
          const again = () => {
            if (this.#entries.get(sessionId) === entry && this.#pending(entry))
              this.#schedule(sessionId, entry);
          };
          setTimeout(again, RETRY_MS).unref();
          return;
        }
        if (this.#pending(entry)) this.#schedule(sessionId, entry);
        // Closed and said: nothing more will be asked of it.
        else if (entry.sent === 'closed') this.#entries.delete(sessionId);
      });
  }

  #pending(entry: Entry): boolean {
    return (
      entry.title !== undefined ||
      (entry.desired !== undefined && (entry.force || entry.desired !== entry.tried))
    );
  }

  async #queue(sessionId: string, entry: Entry): Promise<void> {
    const session = await this.deps.sessions.get(sessionId);
    // Its thread's root, or its own channel (a code channel: the session is the channel, no thread_ts).
    const place = session ? threadPlace(session) : undefined;
    // Not yet in Slack (its card not posted): asked again at its next change.
    if (!session || !place || (!place.cardTs && !session.codeChannelId)) return;
    const where = { channel: place.channelId, thread: place.cardTs };
    await this.deps.outbound.run({
      channel: where.channel,
      priority: 'edit',
      method: 'agents.sessions.setStatus',
      tag: sessionId,
      run: () => this.#send(session, where, entry),
    });
  }

  /** One turn of the queue: the latest status (and title), whatever was asked while it waited. */
  async #send(
    session: SessionRecord,
    where: { channel: string; thread: string | null },
    entry: Entry,
  ): Promise<void> {
    const at = { channel_id: where.channel, ...(where.thread ? { thread_ts: where.thread } : {}) };
    if (this.deps.surface.current() !== 'agent' || entry.dead) return;
    const { desired } = entry;
    if (desired !== undefined && (entry.force || desired !== entry.tried)) {
      entry.force = false;
      entry.tried = desired;
      const answer = await this.#call('agents.sessions.setStatus', session, entry, () =>
        this.deps.slack.agents.sessions.setStatus({
          ...at,
          status: desired,
          // Both count only when Slack creates the session (the first call), and are ignored after.
          title: sessionTitle(session.goal),
          ...(entry.noInitiator ? {} : { initiator_user_id: session.startedBy }),
        }),
      );
      if (!answer) return;
      entry.sent = desired;
      this.#warnings(answer);
    }
    const { title } = entry;
    if (title === undefined) return;
    entry.title = undefined;
    await this.#call('agents.sessions.rename', session, entry, () =>
      this.deps.slack.agents.sessions.rename({ ...at, title }),
    );
  }

  /** Slack's answer, or undefined when it refused (and what that means is done). 429s go up to the queue. */
  async #call<T>(
    method: string,
    session: SessionRecord,
    entry: Entry,
    call: () => Promise<T>,
  ): Promise<T | undefined> {
    try {
      return await call();
    } catch (error) {
      // A 429 goes back to the queue, which sends it again after Retry-After: then it is tried again.
      if (rateLimitedRetryAfterMs(error) !== undefined) {
        entry.tried = undefined;
        throw error;
      }
      const code = slackErrorCode(error);
      // Slack unreachable, busy or down: logged, and tried again at the session's next change.
      if (code === undefined || isTransient(code)) {
        entry.tried = undefined;
        entry.retryLater = true;
        throw error;
      }
      if (isFeatureMissing(code)) {
        this.deps.surface.fallBack(method, code);
        return undefined;
      }
      // The initiator must be a member of the channel: without it, Slack takes the call.
      if (method === 'agents.sessions.setStatus' && !entry.noInitiator && /user/.test(code)) {
        entry.noInitiator = true;
        entry.tried = undefined;
        return undefined;
      }
      entry.dead = true;
      if (method === 'agents.sessions.setStatus' && NOT_MEMBER.has(code)) this.#tellNotMember(session);
      this.deps.logger.warn(
        { sessionId: session.sessionId, method, error: code },
        "Slack refused this session's agent status: its card and thread carry it from now on",
      );
      return undefined;
    }
  }

  #tellNotMember(session: SessionRecord): void {
    const key = cacheKey(`${session.channelId}:${session.startedBy}`);
    if (!this.deps.notMember || this.#toldNotMember.has(key)) return;
    this.#toldNotMember.add(key);
    void this.deps
      .notMember(session)
      .catch((error: unknown) =>
        this.deps.logger.warn(
          { err: error, sessionId: session.sessionId },
          'could not tell the starter to invite the bot',
        ),
      );
  }

  #warnings(answer: unknown): void {
    if (this.#warned || typeof answer !== 'object' || answer === null) return;
    const { warning, response_metadata: meta } = answer as {
      warning?: unknown;
      response_metadata?: { warnings?: unknown };
    };
    const all = [warning, ...(Array.isArray(meta?.warnings) ? meta.warnings : [])];
    if (!all.some((w) => typeof w === 'string' && w.includes(MISSING_STOP_SUBSCRIPTION))) return;
    this.#warned = true;
    this.deps.logger.warn(
      { warning: MISSING_STOP_SUBSCRIPTION },
      "Slack shows no Stop button for the bot's sessions: subscribe the app to the agent_session_stopped event (manifest.yml has it)",
    );
  }
}
