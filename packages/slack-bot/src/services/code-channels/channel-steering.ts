/**
 * Acting on a session from its own channel: the agent's channel commands (`/pause`, `/redirect <text>`,
 * `/budget <n>`…) and the context bar's Pause/Resume and Cancel. Each goes through SteeringService, the
 * way `/agent` and the card's buttons do, so the same policy decides who may act.
 */
import { isResumable } from '@agent-sessions/core';
import type { ModalView } from '@slack/types';
import { CONTEXT_ACTIONS } from '../../blocks/code-channel.js';
import { escapeMrkdwn, type SlackMessage } from '../../blocks/text.js';
import type { SessionRecord } from '../../store/records.js';
import type { SessionRepository } from '../../store/sessions.js';
import type { SessionDirectory } from '../people/directory.js';
import type { SteeringService } from '../people/steering.js';
import type { Notifier } from '../slack-out/thread/index.js';

/** What a channel command answers: private words, or a form to open (Resume at the budget limit). */
export type CommandReply = { say: string | SlackMessage } | { view: ModalView };

const DONE = {
  pause: '⏸️ Paused.',
  resume: '▶️ Resumed.',
  cancel: '🛑 Cancelled.',
  redirect: '↪️ Redirected.',
} as const;

export class ChannelSteering {
  constructor(
    private readonly deps: {
      sessions: Pick<SessionRepository, 'findByCodeChannel'>;
      steering: Pick<SteeringService, 'signal' | 'resume'>;
      directory: Pick<SessionDirectory, 'status'>;
      notifier: Pick<Notifier, 'tell'>;
      /** Claims an event once across replicas and Slack's retries. */
      claim: (key: string) => Promise<boolean>;
    },
  ) {}

  async #session(channelId: string): Promise<SessionRecord | undefined> {
    return this.deps.sessions.findByCodeChannel(channelId);
  }

  /** One of the agent's channel commands, by name (without its slash), with what follows it. */
  async command(channelId: string, userId: string, name: string, text: string): Promise<CommandReply> {
    const session = await this.#session(channelId);
    if (!session) return { say: '⚠️ This channel is no agent session’s.' };
    const { steering } = this.deps;
    const { sessionId } = session;
    const said = text.trim();
    switch (name) {
      case 'pause':
      case 'cancel': {
        const result = await steering.signal(sessionId, userId, name);
        return { say: result.ok ? DONE[name] : `⚠️ ${result.message}` };
      }
      case 'resume': {
        const result = await steering.resume(sessionId, userId);
        if (!result.ok) return { say: `⚠️ ${result.message}` };
        return result.view ? { view: result.view } : { say: DONE.resume };
      }
      case 'redirect': {
        if (said === '') return { say: '⚠️ `/redirect &lt;new direction&gt;`: the direction is missing' };
        const result = await steering.signal(sessionId, userId, 'redirect', { message: said });
        return { say: result.ok ? DONE.redirect : `⚠️ ${result.message}` };
      }
      case 'budget':
        return this.#budget(session, userId, said);
      case 'agent-status':
        return { say: await this.deps.directory.status(userId, session.channelId, sessionId) };
      default:
        return { say: `⚠️ The agent has no command /${escapeMrkdwn(name)} here.` };
    }
  }

  /** `/budget <n>`: the new budget in USD, and the session goes on with it (as Raise budget does). */
  async #budget(session: SessionRecord, userId: string, said: string): Promise<CommandReply> {
    const amount = Number(said.replace(/^\$/, ''));
    if (said === '' || !(Number.isFinite(amount) && amount > 0))
      return {
        say: `⚠️ \`/budget &lt;amount&gt;\`: the new budget must be a positive number of USD, like 10 or 2.50${said ? `, got "${escapeMrkdwn(said)}"` : ''}`,
      };
    const result = await this.deps.steering.signal(session.sessionId, userId, 'resume', {
      newBudget: amount,
    });
    return { say: result.ok ? `▶️ Budget raised to $${amount.toFixed(2)}.` : `⚠️ ${result.message}` };
  }

  /** A context bar action (Pause/Resume, Cancel), clicked: once per event, refusals said privately. */
  async action(eventId: string, channelId: string, userId: string, key: string): Promise<void> {
    if (!(await this.deps.claim(`code-channel-action:${eventId}`))) return;
    const session = await this.#session(channelId);
    if (!session || session.finished) return;
    const { steering } = this.deps;
    let message: string | undefined;
    if (key === CONTEXT_ACTIONS.cancel) {
      const result = await steering.signal(session.sessionId, userId, 'cancel');
      if (!result.ok) message = result.message;
    } else if (key === CONTEXT_ACTIONS.pauseOrResume && isResumable(session.status)) {
      const result = await steering.resume(session.sessionId, userId);
      if (!result.ok) message = result.message;
      // At the budget limit Resume needs a new budget, which a context bar click can't ask for.
      else if (result.view)
        message = 'The session is at its budget limit: raise it with `/budget &lt;amount&gt;`.';
    } else if (key === CONTEXT_ACTIONS.pauseOrResume) {
      const result = await steering.signal(session.sessionId, userId, 'pause');
      if (!result.ok) message = result.message;
    } else return;
    if (message) await this.deps.notifier.tell(channelId, userId, `⚠️ ${message}`);
  }
}
