import type { HomeView, KnownBlock } from '@slack/types';
import { homeView, type WaitingOnYou } from '../../blocks/home.js';
import { promptMessage } from '../../blocks/prompt.js';
import { cardStateOf, sessionCard } from '../../blocks/session-card.js';
import { ROUND_HELP, summaryOf } from '../../blocks/session-summary.js';
import { escapeMrkdwn, mrkdwn, type SlackMessage, truncate } from '../../blocks/text.js';
import type { EventLog } from '../../store/events.js';
import type { PromptRepository } from '../../store/prompts.js';
import type { SessionRecord } from '../../store/records.js';
import type { SessionRepository } from '../../store/sessions.js';
import type { AuditService } from '../ops/audit.js';
import type { SessionsApi } from '../outcome.js';
import type { CardMessage } from '../slack-out/thread/index.js';
import type { ActPolicy } from './policy.js';
import { notVisible, type SessionVisibility } from './visibility.js';

/**
 * What people look up: a channel's sessions, one session's state and history, their own sessions on App
 * Home — each session shown only to whom `visibility` lets see it. To anyone else a session they may not
 * see answers exactly as one that doesn't exist, and nothing about it is asked of the service.
 */
export class SessionDirectory {
  constructor(
    private readonly deps: {
      client: SessionsApi<'get'>;
      sessions: Pick<SessionRepository, 'get' | 'list'>;
      prompts: Pick<PromptRepository, 'pending'>;
      events: EventLog;
      /** The card as the follower last saw it, when this replica follows the session. */
      card: (sessionId: string) => Promise<CardMessage | undefined>;
      /** With it, App Home lists first the questions this person may answer ("Waiting on you"). */
      policy?: ActPolicy;
      visibility: Pick<SessionVisibility, 'maySee'>;
      /** `/agent history`; without it, history is not available. */
      audit?: Pick<AuditService, 'history'>;
    },
  ) {}

  async list(userId: string, channelId: string): Promise<string> {
    const sessions = await this.#visible(
      userId,
      await this.deps.sessions.list({ channelId, activeOnly: true }),
    );
    if (sessions.length === 0)
      return 'No active agent sessions in this channel. Start one with `/agent start &lt;goal&gt;`.';
    const now = Date.now();
    return [
      `*Active agent sessions in this channel (${sessions.length})*`,
      ...sessions.map((s) => {
        const summary = summaryOf(s, undefined, now);
        return `• \`${s.sessionId}\` ${summary.label} — ${escapeMrkdwn(truncate(summary.goal, 120))} (<@${s.startedBy}>)`;
      }),
    ].join('\n');
  }

  /** A session's card and any question still waiting, shown again to whoever asks. */
  async status(
    userId: string,
    channelId: string,
    sessionId: string | undefined,
  ): Promise<SlackMessage | string> {
    const { sessions, prompts, client } = this.deps;
    const found = sessionId
      ? await sessions.get(sessionId)
      : (await sessions.list({ channelId, activeOnly: true, limit: 1 }))[0];
    const session = found && (await this.deps.visibility.maySee(userId, found)) ? found : undefined;
    if (!session) {
      return sessionId
        ? notVisible(sessionId)
        : 'No active session in this channel. `/agent status &lt;session-id&gt;` shows any session you can see.';
    }
    // The service's numbers, as the card shows them: one summary, whoever follows the session. Without
    // them, the card this replica draws, else the store's (an ended session's numbers left unknown).
    const live = await client.sessions.get(session.sessionId).catch(() => undefined);
    const card =
      (live ? sessionCard(cardStateOf(session, live, Date.now())) : undefined) ??
      (await this.deps.card(session.sessionId)) ??
      sessionCard(cardStateOf(session, undefined, Date.now()));
    const blocks: KnownBlock[] = card.blocks.filter((b) => b.type !== 'actions');
    blocks.push({ type: 'context', elements: [mrkdwn(`*What is a round?* ${ROUND_HELP}`)] });
    for (const prompt of (await prompts.pending(session.sessionId)).slice(0, 3)) {
      blocks.push({ type: 'divider' }, ...promptMessage(prompt.request, session).blocks);
    }
    return { text: card.text, blocks: blocks.slice(0, 50) };
  }

  /** `/agent history <id>`: the session's record, to whom may see the session. */
  async history(userId: string, sessionId: string): Promise<string> {
    const session = await this.deps.sessions.get(sessionId);
    if (!session || !(await this.deps.visibility.maySee(userId, session))) return notVisible(sessionId);
    return this.deps.audit ? this.deps.audit.history(sessionId) : 'History is not available here.';
  }

  /** The sessions of `all` that this person may see, in the same order. */
  async #visible<T extends Pick<SessionRecord, 'startedBy' | 'channelId'>>(
    userId: string,
    all: T[],
  ): Promise<T[]> {
    const out: T[] = [];
    for (const session of all) if (await this.deps.visibility.maySee(userId, session)) out.push(session);
    return out;
  }

  /** The Home tab: the viewer's own sessions, newest first; once per Slack event (Slack re-delivers). */
  async home(
    userId: string,
    eventId: string | undefined,
    top: KnownBlock[] = [],
  ): Promise<HomeView | undefined> {
    if (eventId && !(await this.deps.events.markProcessed(eventId))) return undefined;
    const { mine, waiting } = await this.overview(userId);
    return homeView(mine, waiting, top);
  }

  /** What App Home lists (and MCP's list_sessions): the person's own sessions, and the questions waiting on them. */
  async overview(userId: string): Promise<{ mine: SessionRecord[]; waiting: WaitingOnYou[] }> {
    const [mine, waiting] = await Promise.all([
      this.deps.sessions.list({ startedBy: userId, limit: 50 }),
      this.#waitingOn(userId),
    ]);
    return { mine, waiting };
  }

  /** Open questions in sessions waiting on a person that the policy lets this user answer. */
  async #waitingOn(userId: string): Promise<WaitingOnYou[]> {
    const { policy } = this.deps;
    if (!policy) return [];
    const active = await this.deps.sessions.list({ activeOnly: true, limit: 200 });
    const out: WaitingOnYou[] = [];
    // Whoever may answer may see, under every policy today; checked anyway, so no policy shows more.
    for (const session of await this.#visible(
      userId,
      active.filter((s) => s.status === 'waiting_human'),
    )) {
      for (const prompt of await this.deps.prompts.pending(session.sessionId)) {
        if (prompt.state !== 'pending') continue;
        const verdict = await policy.mayAct(userId, { kind: 'answer', session, request: prompt.request });
        if (!verdict.allowed) continue;
        const who = policy.whoMayAnswer?.(session, prompt.request).line;
        out.push({ session, prompt, ...(who ? { answerers: who } : {}) });
      }
    }
    return out;
  }
}
