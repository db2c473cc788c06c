import type { HomeView, KnownBlock } from '@slack/types';
import { homeView, type WaitingOnYou } from '../../blocks/home.js';
import { promptMessage } from '../../blocks/prompt.js';
import { cardStateOf, sessionCard, statusLabel } from '../../blocks/session-card.js';
import { escapeMrkdwn, mrkdwn, type SlackMessage, truncate } from '../../blocks/text.js';
import type { EventLog } from '../../store/events.js';
import type { PromptRepository } from '../../store/prompts.js';
import type { SessionRepository } from '../../store/sessions.js';
import type { SessionsApi } from '../outcome.js';
import type { CardMessage } from '../slack-out/card-updater.js';
import type { ActPolicy } from './policy.js';

/** What people look up: a channel's sessions, one session's state, their own sessions on App Home. */
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
    },
  ) {}

  async list(channelId: string): Promise<string> {
    const sessions = await this.deps.sessions.list({ channelId, activeOnly: true });
    if (sessions.length === 0)
      return 'No active agent sessions in this channel. Start one with `/agent start &lt;goal&gt;`.';
    return [
      `*Active agent sessions in this channel (${sessions.length})*`,
      ...sessions.map(
        (s) =>
          `• \`${s.sessionId}\` ${statusLabel(s.status)} — ${escapeMrkdwn(truncate(s.goal, 120))} (<@${s.startedBy}>)`,
      ),
    ].join('\n');
  }

  /** A session's card and any question still waiting, shown again to whoever asks. */
  async status(channelId: string, sessionId: string | undefined): Promise<SlackMessage | string> {
    const { sessions, prompts, client } = this.deps;
    const session = sessionId
      ? await sessions.get(sessionId)
      : (await sessions.list({ channelId, activeOnly: true, limit: 1 }))[0];
    if (!session) {
      return sessionId
        ? `No session \`${escapeMrkdwn(sessionId)}\` was started from this workspace.`
        : 'No active session in this channel. `/agent status &lt;session-id&gt;` shows any session.';
    }
    const card =
      (await this.deps.card(session.sessionId)) ?? sessionCard(cardStateOf(session, undefined, Date.now()));
    // Live numbers from the service when this replica isn't the one following the session.
    const live = await client.sessions.get(session.sessionId).catch(() => undefined);
    const blocks: KnownBlock[] = card.blocks.filter((b) => b.type !== 'actions');
    if (live) {
      blocks.push({
        type: 'context',
        elements: [
          mrkdwn(
            `Now: ${statusLabel(live.status)} · $${(live.cost?.totalCost ?? 0).toFixed(3)} spent · ${live.rounds?.length ?? 0} rounds`,
          ),
        ],
      });
    }
    for (const prompt of (await prompts.pending(session.sessionId)).slice(0, 3)) {
      blocks.push({ type: 'divider' }, ...promptMessage(prompt.request, session).blocks);
    }
    return { text: card.text, blocks: blocks.slice(0, 50) };
  }

  /** The Home tab: the viewer's own sessions, newest first; once per Slack event (Slack re-delivers). */
  async home(userId: string, eventId: string | undefined): Promise<HomeView | undefined> {
    if (eventId && !(await this.deps.events.markProcessed(eventId))) return undefined;
    const [mine, waiting] = await Promise.all([
      this.deps.sessions.list({ startedBy: userId, limit: 50 }),
      this.#waitingOn(userId),
    ]);
    return homeView(mine, waiting);
  }

  /** Open questions in sessions waiting on a person that the policy lets this user answer. */
  async #waitingOn(userId: string): Promise<WaitingOnYou[]> {
    const { policy } = this.deps;
    if (!policy) return [];
    const active = await this.deps.sessions.list({ activeOnly: true, limit: 200 });
    const out: WaitingOnYou[] = [];
    for (const session of active.filter((s) => s.status === 'waiting_human')) {
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
