import type { FollowedSession } from '@agent-sessions/core';
import type { ModalView } from '@slack/types';
import { raiseBudgetModal, redirectModal } from '../../blocks/modals.js';
import { totalCostOf } from '../../blocks/session-card.js';
import { escapeMrkdwn } from '../../blocks/text.js';
import { decodeRef, sessionOf } from '../../refs.js';
import type { PromptRepository } from '../../store/prompts.js';
import type { SessionRecord } from '../../store/records.js';
import type { SessionRepository } from '../../store/sessions.js';
import { type AuditService, serviceAnswer } from '../ops/audit.js';
import type { BotMetrics } from '../ops/metrics.js';
import { describeServiceFailure, type FormResult, type Outcome, type SessionsApi } from '../outcome.js';
import { type Notifier, threadPlace } from '../slack-out/thread/index.js';
import type { ActPolicy } from './policy.js';
import { notVisible, type SessionVisibility } from './visibility.js';

export type SignalKind = 'pause' | 'resume' | 'cancel' | 'redirect';

/** Where an act came from, beyond who did it. */
export interface ActContext {
  /** The session's record when the caller has read it already (`resume`): not read a second time. */
  known?: SessionRecord;
  /**
   * The conversation the act was made in (a click on the card): in the session's own channel the person
   * is looking at it, so a refusal may say why; from anywhere else, whoever may not see it is told it
   * doesn't exist.
   */
  seenIn?: string;
  /** Slack's own Stop button: a cancel, said in the thread as "⏹ stopped by …". */
  via?: 'stop';
  /** An agent host acting for the person (MCP): named in the audit record and the thread's note. */
  host?: string;
  /**
   * Taken once the act is allowed, before the service is asked: when another caller (another replica)
   * holds it, nothing is sent and the outcome is `{ ok: true, claimed: false }`. Released when the service
   * refuses, so a later act can try again.
   */
  claim?: { take(): Promise<boolean>; release(): Promise<void> };
}

export interface SignalExtra {
  message?: string;
  reason?: string;
  newBudget?: number;
}

const SIGNAL_DONE: Record<SignalKind, { icon: string; verb: string }> = {
  pause: { icon: '⏸️', verb: 'paused the session' },
  resume: { icon: '▶️', verb: 'resumed the session' },
  cancel: { icon: '🛑', verb: 'cancelled the session' },
  redirect: { icon: '↪️', verb: 'redirected the agent' },
};

/** What a signal's audit record says beyond its kind: what was sent, and through what. */
function auditDetail(extra: SignalExtra, context: ActContext): Record<string, unknown> | null {
  const via = context.via ?? context.host;
  return Object.keys(extra).length > 0 || via ? { ...extra, ...(via ? { via } : {}) } : null;
}

/** Steering a running session: signals, redirect and a raised budget — checked, sent, and noted. */
export class SteeringService {
  constructor(
    private readonly deps: {
      client: SessionsApi<'redirect' | 'resume' | 'pause' | 'cancel' | 'get'>;
      sessions: Pick<SessionRepository, 'get' | 'update'>;
      policy: ActPolicy;
      /** Who may see a session: anyone else acting on it is answered as for an id that doesn't exist. */
      visibility: Pick<SessionVisibility, 'maySee'>;
      notifier: Notifier;
      metrics: BotMetrics;
      /** The last snapshot polled of a session, for its spend. */
      snapshot: (sessionId: string) => FollowedSession | undefined;
      /** Every signal sent (or refused by the service) is recorded. */
      audit?: Pick<AuditService, 'record'>;
      /** The questions still open: a redirect while an approval waits is the policy's to judge. */
      prompts?: Pick<PromptRepository, 'pending'>;
      /** Told of every signal the service took (a redirect renames the session's agent session). */
      signalled?: (sessionId: string, kind: SignalKind, extra: SignalExtra) => void;
    },
  ) {}

  async signal(
    sessionId: string,
    userId: string,
    kind: SignalKind,
    extra: SignalExtra = {},
    context: ActContext = {},
  ): Promise<Outcome<{ claimed?: false }>> {
    const allowed = await this.#authorize(sessionId, userId, context, {
      redirect: kind === 'redirect',
      ...(extra.newBudget === undefined ? {} : { newBudget: extra.newBudget }),
    });
    if (!allowed.ok) return allowed;
    const { session } = allowed;
    if (session.finished) return { ok: false, message: 'This session has already ended.' };
    if (context.claim && !(await context.claim.take())) return { ok: true, claimed: false };
    const { client, metrics } = this.deps;
    const audited = (error?: unknown) =>
      this.deps.audit?.record({
        sessionId,
        action: extra.newBudget !== undefined ? 'raise_budget' : kind,
        userId,
        channelId: session.channelId,
        threadTs: threadPlace(session).cardTs,
        detail: auditDetail(extra, context),
        ...serviceAnswer(error),
      });
    try {
      if (kind === 'redirect') await client.sessions.redirect(sessionId, { message: extra.message ?? '' });
      else if (kind === 'resume') {
        await client.sessions.resume(sessionId, {
          ...(extra.newBudget === undefined ? {} : { newBudget: extra.newBudget }),
          ...(extra.message ? { message: extra.message } : {}),
        });
      } else await client.sessions[kind](sessionId, extra.reason ? { reason: extra.reason } : {});
    } catch (error) {
      await context.claim?.release();
      await audited(error);
      metrics.actions.inc({ kind, outcome: 'error' });
      return { ok: false, message: `Could not ${kind} the session: ${describeServiceFailure(error)}` };
    }
    metrics.actions.inc({ kind, outcome: 'ok' });
    await audited();
    if (extra.newBudget !== undefined)
      await this.deps.sessions.update(sessionId, { budget: extra.newBudget });
    this.deps.signalled?.(sessionId, kind, extra);
    const done = SIGNAL_DONE[kind];
    const detail = extra.newBudget !== undefined ? ` with a budget of $${extra.newBudget.toFixed(2)}` : '';
    const said = extra.message ?? extra.reason;
    await this.deps.notifier.note(
      session,
      context.via === 'stop'
        ? `⏹ stopped by <@${userId}>`
        : `${done.icon} <@${userId}> ${done.verb}${detail}${context.host ? ` (${escapeMrkdwn(context.host)})` : ''}${said ? `: ${escapeMrkdwn(said)}` : ''}`,
    );
    this.deps.notifier.refresh(sessionId);
    return { ok: true };
  }

  /** Redirect and Raise budget open a form; who may act is checked first, so others never see it. */
  async openForm(
    ref: string | undefined,
    userId: string,
    which: 'redirect' | 'raise_budget',
    seenIn?: string,
  ): Promise<Outcome<{ view: ModalView }>> {
    const sessionId = sessionOf(decodeRef(ref));
    if (!sessionId) return { ok: false, message: 'This button lost its session; run `/agent status`.' };
    // A redirect the policy would refuse (an approval waiting, under four eyes) is refused before the form.
    const allowed = await this.#authorize(sessionId, userId, seenIn ? { seenIn } : {}, {
      redirect: which === 'redirect',
    });
    if (!allowed.ok)
      return { ok: false, message: 'unseen' in allowed ? allowed.message : `🚫 ${allowed.message}` };
    if (allowed.session.finished) return { ok: false, message: 'This session has already ended.' };
    if (which === 'redirect') return { ok: true, view: redirectModal(sessionId) };
    return { ok: true, view: await this.#budgetForm(allowed.session) };
  }

  /** `/agent resume`: a session stopped by its budget needs a new one, so the form is asked for. */
  async resume(sessionId: string, userId: string): Promise<Outcome<{ view?: ModalView }>> {
    const session = await this.deps.sessions.get(sessionId);
    const known = session ? { known: session } : {};
    if (session?.status !== 'cost_limit') return this.signal(sessionId, userId, 'resume', {}, known);
    const allowed = await this.#authorize(sessionId, userId, known);
    if (!allowed.ok) return allowed;
    return { ok: true, view: await this.#budgetForm(session) };
  }

  submitRedirect(ref: string | undefined, userId: string, message: string | undefined): FormResult {
    const sessionId = sessionOf(decodeRef(ref));
    if (!message) return { ok: false, errors: { message: 'Tell the agent where to go instead' } };
    if (!sessionId) return { ok: false, errors: { message: 'This form lost its session; try again' } };
    return {
      ok: true,
      run: () =>
        this.#signalFromForm(sessionId, userId, 'redirect', { message }, `\nWhat you wrote:\n> ${message}`),
    };
  }

  submitBudget(
    ref: string | undefined,
    userId: string,
    raw: string | undefined,
    spend: number | undefined,
  ): FormResult {
    const sessionId = sessionOf(decodeRef(ref));
    const budget = raw === undefined ? Number.NaN : Number(raw.replace(/^\$/, ''));
    const spent = typeof spend === 'number' ? spend : 0;
    let error: string | undefined;
    if (raw === undefined) error = 'Enter the new budget in dollars';
    else if (!(Number.isFinite(budget) && budget > 0))
      error = 'The budget must be a positive number of dollars';
    else if (budget <= spent)
      error = `The new budget must be more than the $${spent.toFixed(2)} already spent`;
    if (error || !sessionId) {
      return { ok: false, errors: { budget: error ?? 'This form lost its session; try again' } };
    }
    return { ok: true, run: () => this.#signalFromForm(sessionId, userId, 'resume', { newBudget: budget }) };
  }

  /** Spend so far (from the last poll, else asked of the service) for the budget form. */
  async spend(sessionId: string): Promise<number> {
    const seen = totalCostOf(this.deps.snapshot(sessionId));
    if (typeof seen === 'number') return seen;
    const status = await this.deps.client.sessions.get(sessionId);
    return status.cost?.totalCost ?? 0;
  }

  async #budgetForm(session: SessionRecord): Promise<ModalView> {
    return raiseBudgetModal(session.sessionId, await this.spend(session.sessionId), session.budget);
  }

  /**
   * Failures after the form closed go to the person privately, with what they typed so it isn't lost:
   * in the session's channel, or — when they may not see the session — in their DM, as for an unknown id.
   */
  async #signalFromForm(
    sessionId: string,
    userId: string,
    kind: SignalKind,
    extra: SignalExtra,
    typed = '',
  ): Promise<void> {
    const result = await this.signal(sessionId, userId, kind, extra);
    if (result.ok) return;
    const session = await this.deps.sessions.get(sessionId);
    const seen = session !== undefined && (await this.deps.visibility.maySee(userId, session));
    await this.deps.notifier.tell(seen ? session.channelId : userId, userId, `⚠️ ${result.message}${typed}`);
  }

  /**
   * A known session the user may act on, or why not. Whoever may not see the session (and isn't looking at
   * it in its channel) hears what an unknown id gets — not who started it, nor that it exists — and
   * nothing reaches the service; someone who may see it is told precisely why they may not act.
   */
  async #authorize(
    sessionId: string,
    userId: string,
    { known, seenIn }: ActContext = {},
    change: { redirect?: boolean; newBudget?: number } = {},
  ): Promise<Outcome<{ session: SessionRecord }> | { ok: false; message: string; unseen: true }> {
    const session = known ?? (await this.deps.sessions.get(sessionId));
    const seen =
      session !== undefined &&
      (seenIn === session.channelId || (await this.deps.visibility.maySee(userId, session)));
    if (!seen) return { ok: false, message: notVisible(sessionId), unseen: true };
    const approvalWaiting =
      change.redirect === true &&
      (await this.deps.prompts?.pending(sessionId))?.some((p) => p.request.kind === 'approval') === true;
    const verdict = await this.deps.policy.mayAct(userId, {
      kind: 'steer',
      session,
      ...change,
      ...(approvalWaiting ? { approvalWaiting } : {}),
    });
    if (!verdict.allowed) {
      this.deps.metrics.actions.inc({ kind: 'refused', outcome: 'refused' });
      return { ok: false, message: verdict.reason };
    }
    return { ok: true, session };
  }
}
