/**
 * Questions nobody answers: reminders, the starter's DM, escalation and the timeout, each step of one
 * schedule (claim, remind, escalate, time out) told beside the others. The schedule's storage is
 * store/reminders.ts and the answer on timeout goes through AnsweringService.
 */
import { validateAnswer } from '@agent-sessions/core';
import { escapeMrkdwn, formatDuration, truncate } from '../../blocks/text.js';
import type { Logger } from '../../logger.js';
import type { PromptRepository } from '../../store/prompts.js';
import type { PromptInSession } from '../../store/records.js';
import type { ClaimedStep, ReminderRepository } from '../../store/reminders.js';
import { currentWorkspace } from '../../workspace.js';
import type { AuditService } from '../ops/audit.js';
import type { BotMetrics } from '../ops/metrics.js';
import { describeServiceFailure, type SessionsApi } from '../outcome.js';
import type { AnsweringService } from '../people/answering.js';
import type { ActPolicy } from '../people/policy.js';
import { escalationIn } from '../people/workspace-entries.js';
import type { SlackClient } from '../slack-out/outbound/index.js';
import {
  CannotPostHereError,
  type Notifier,
  type ThreadPoster,
  threadPlace,
} from '../slack-out/thread/index.js';

/** A reminder step claimed this long ago and still undelivered is a dead replica's, at the latest. */
export const REDELIVER_AFTER_MS = 20_000;

/** What the schedule takes: its gaps, whom it escalates to, and the timeout with what it does. */
export interface ReminderSettings {
  /** 0: no reminders. */
  remindAfterMs: number;
  remindMax: number;
  /** A user group (S…) or channel (C…, G…) told after the last reminder. */
  escalateTo?: string;
  /** Unset: questions wait for ever. */
  questionTimeoutMs?: number;
  onTimeout: 'leave' | 'reject' | 'cancel';
}

/**
 * Questions nobody answers are not forgotten: reminders in the thread (mentioning whoever may answer)
 * and a DM to the starter linking to the question, with growing gaps; then an escalation; and, when a
 * timeout is set, what AGENT_ON_TIMEOUT says — always said in the thread. The schedule is in the store
 * (`ReminderRepository`): every replica ticks, each step is claimed by one. A question answered, or a
 * session no longer waiting on a person, is never claimed again.
 */
export class ReminderService {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #lastPrune = 0;

  constructor(
    private readonly deps: {
      reminders: ReminderRepository;
      prompts: Pick<PromptRepository, 'find' | 'claim'>;
      slack: Pick<SlackClient, 'chat'>;
      /** Reminders, DMs and escalations are posted once per key, even when a step is delivered again. */
      poster: Pick<ThreadPoster, 'post'>;
      notifier: Pick<Notifier, 'note' | 'refresh'>;
      policy: ActPolicy;
      answering: Pick<AnsweringService, 'send'>;
      client: SessionsApi<'cancel'>;
      audit: Pick<AuditService, 'record' | 'prune'>;
      /** Counts each step sent: questions waiting past their reminder are an alert (deploy/monitoring). */
      metrics?: Pick<BotMetrics, 'questionReminders'>;
      settings: ReminderSettings;
      logger: Logger;
      /** The bot's own user id: who "answers" a question rejected on timeout. */
      botUserId: () => string;
      now?: () => Date;
      /** How often to look for due steps (default: a quarter of the shortest setting, 1 s to 30 s). */
      tickMs?: number;
      /** A step claimed this long ago and not delivered belongs to a dead replica (default REDELIVER_AFTER_MS). */
      redeliverAfterMs?: number;
      /** Runs a session's work as its workspace's (its token, its budgets). */
      inSession?: <T>(sessionId: string, fn: () => Promise<T>) => Promise<T>;
      /**
       * Whether the bot serves the session's workspace (under OAuth, SLACK_ALLOWED_TEAMS): a dropped
       * workspace gets no reminder, escalation or timeout. Its steps stay undelivered, so they resume if it
       * is admitted again. Without it, every session is served.
       */
      serves?: (sessionId: string) => Promise<boolean>;
    },
  ) {}

  get enabled(): boolean {
    const { remindAfterMs, questionTimeoutMs } = this.deps.settings;
    return remindAfterMs > 0 || questionTimeoutMs !== undefined;
  }

  start(): void {
    const { remindAfterMs, questionTimeoutMs } = this.deps.settings;
    const shortest = Math.min(
      remindAfterMs > 0 ? remindAfterMs : Number.POSITIVE_INFINITY,
      questionTimeoutMs ?? Number.POSITIVE_INFINITY,
      3_600_000,
    );
    const every = this.deps.tickMs ?? Math.min(30_000, Math.max(250, shortest / 4));
    const loop = () => {
      this.#running = this.tick()
        .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'reminder tick failed'))
        .finally(() => {
          if (this.#timer !== undefined) this.#timer = setTimeout(loop, every).unref();
        });
    };
    this.#timer = setTimeout(loop, every).unref();
  }

  async stop(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** One pass: schedule new questions, send what is due, apply timeouts, prune the audit hourly. */
  async tick(): Promise<void> {
    const { reminders, settings } = this.deps;
    const now = this.deps.now?.() ?? new Date();
    if (now.getTime() - this.#lastPrune > 3_600_000) {
      this.#lastPrune = now.getTime();
      const pruned = await this.deps.audit.prune();
      if (pruned > 0) this.deps.logger.info({ pruned }, 'pruned old audit records');
    }
    if (!this.enabled) return;
    await reminders.schedule(now, settings.remindAfterMs, settings.questionTimeoutMs);
    if (settings.remindAfterMs > 0) {
      const steps = settings.remindMax + (settings.escalateTo ? 1 : 0);
      const staleMs = this.deps.redeliverAfterMs ?? REDELIVER_AFTER_MS;
      const redeliver = await reminders.claimUndelivered(now, staleMs);
      const claimed = [...redeliver, ...(await reminders.claimDue(now, steps, settings.remindAfterMs))];
      // Steps wait their turn here and a post may take a while (paced, retried): their claims are renewed
      // meanwhile, so no other replica takes them for a dead replica's and posts them a second time.
      const renewal = setInterval(() => {
        reminders
          .renewClaims(claimed, this.deps.now?.() ?? new Date())
          .catch((error: unknown) =>
            this.deps.logger.warn({ err: error }, 'could not renew reminder claims'),
          );
      }, staleMs / 4);
      renewal.unref();
      try {
        while (claimed.length > 0) {
          const step = claimed[0] as ClaimedStep;
          if (await this.#serves(step.sessionId))
            await this.#inSession(step.sessionId, () => this.#deliverStep(step));
          claimed.shift();
        }
      } finally {
        clearInterval(renewal);
      }
    }
    if (settings.questionTimeoutMs !== undefined) {
      const timeoutMs = settings.questionTimeoutMs;
      for (const due of await reminders.claimTimedOut(now)) {
        if (!(await this.#serves(due.sessionId))) continue;
        await this.#inSession(due.sessionId, async () => {
          const prompt = await this.deps.prompts.find(due);
          if (!prompt) return;
          await this.#timeout(prompt, timeoutMs);
          this.deps.metrics?.questionReminders.inc({ step: 'timeout' });
        });
      }
    }
  }

  #serves(sessionId: string): Promise<boolean> {
    return this.deps.serves ? this.deps.serves(sessionId).catch(() => false) : Promise.resolve(true);
  }

  #inSession<T>(sessionId: string, fn: () => Promise<T>): Promise<T> {
    return this.deps.inSession ? this.deps.inSession(sessionId, fn) : fn();
  }

  async #deliverStep(due: ClaimedStep): Promise<void> {
    const { reminders, settings } = this.deps;
    try {
      const prompt = await this.deps.prompts.find(due);
      // A question no longer in the store has nothing to remind of.
      if (prompt && due.step <= settings.remindMax) await this.#remind(prompt, due.step);
      else if (prompt) await this.#escalate(prompt);
      if (prompt)
        this.deps.metrics?.questionReminders.inc({
          step: due.step <= settings.remindMax ? 'reminder' : 'escalation',
        });
      await reminders.markDelivered(due.sessionId, due.inputId, due.step);
    } catch (error) {
      if (error instanceof CannotPostHereError) {
        // Slack will take nothing there: trying again every few seconds would only hold the schedule.
        this.deps.logger.warn({ err: error, ...due }, 'a reminder step cannot be posted: skipped');
        await reminders.markDelivered(due.sessionId, due.inputId, due.step);
        return;
      }
      // Left undelivered: claimed again once stale (the next step waits for it), and the poster's keys keep
      // what did go out single.
      this.deps.logger.warn({ err: error, ...due }, 'a reminder could not be delivered yet');
    }
  }

  /** Slack refusing a place for good (the channel gone, the bot not in it) is logged, not retried. */
  async #postOrSkip(post: () => Promise<unknown>, what: string, context: object): Promise<void> {
    try {
      await post();
    } catch (error) {
      if (!(error instanceof CannotPostHereError)) throw error;
      this.deps.logger.warn({ err: error, ...context }, `${what} cannot be posted: skipped`);
    }
  }

  async #remind(prompt: PromptInSession, step: number): Promise<void> {
    const { session, request } = prompt;
    const who = this.deps.policy.whoMayAnswer?.(session, request) ?? {
      line: '',
      mentions: `<@${session.startedBy}>`,
    };
    const question = escapeMrkdwn(truncate(request.prompt, 300));
    const link = await this.#permalink(prompt);
    const context = { sessionId: session.sessionId, inputId: prompt.inputId, step };
    // The thread refusing us (channel archived, bot removed) makes the DM the one way left to say it.
    await this.#postOrSkip(
      () =>
        this.deps.poster.post(threadPlace(session), `remind:${prompt.inputId}:${step}`, {
          text: `⏰ Reminder ${step} of ${this.deps.settings.remindMax}: ${who.mentions || who.line} the agent is still waiting for an answer to “${question}”.${who.others ? ` ${who.others}.` : ''}`,
        }),
      'a thread reminder',
      context,
    );
    await this.#postOrSkip(
      () =>
        this.deps.poster.post(
          { sessionId: session.sessionId, channelId: session.startedBy, cardTs: null },
          `remind-dm:${prompt.inputId}:${step}`,
          {
            text: `⏰ Your agent session in <#${session.channelId}> is still waiting for an answer to “${question}”${link ? ` — <${link}|open the question>` : ''}.`,
          },
        ),
      'a reminder DM',
      context,
    );
  }

  async #escalate(prompt: PromptInSession): Promise<void> {
    // AGENT_ESCALATE_TO may name a target per workspace (T0NORTH:S123): this session's.
    const target = escalationIn(this.deps.settings.escalateTo, currentWorkspace()?.teamId)?.id;
    if (!target) return;
    const { session, request } = prompt;
    const question = escapeMrkdwn(truncate(request.prompt, 300));
    const times = this.deps.settings.remindMax;
    const why = `nobody answered “${question}” after ${times} reminder${times === 1 ? '' : 's'}`;
    const key = `escalate:${prompt.inputId}`;
    if (target.startsWith('S')) {
      await this.deps.poster.post(threadPlace(session), key, {
        text: `🚨 Escalated to <!subteam^${target}>: ${why}. Please answer above.`,
      });
      return;
    }
    const link = await this.#permalink(prompt);
    try {
      await this.deps.poster.post({ sessionId: session.sessionId, channelId: target, cardTs: null }, key, {
        text: `🚨 An agent session in <#${session.channelId}> (started by <@${session.startedBy}>) needs a decision: ${why}.${link ? ` <${link}|Open the question>` : ''}`,
      });
    } catch (error) {
      if (!(error instanceof CannotPostHereError)) throw error;
      // A misconfigured AGENT_ESCALATE_TO must not pass in silence: the thread says what to fix.
      this.deps.logger.warn({ err: error, target }, 'could not escalate to the channel');
      await this.deps.poster.post(threadPlace(session), `${key}:note`, {
        text: `⚠️ Escalating to <#${target}> failed (Slack said ${error.code}), so nobody there was told that ${why}. Invite the bot to <#${target}>, or change AGENT_ESCALATE_TO.`,
      });
      return;
    }
    await this.deps.poster.post(threadPlace(session), `${key}:note`, {
      text: `🚨 Escalated to <#${target}>: ${why}.`,
    });
  }

  async #timeout(prompt: PromptInSession, timeoutMs: number): Promise<void> {
    const { session, request } = prompt;
    const waited = formatDuration(timeoutMs);
    const action = this.deps.settings.onTimeout;
    // Recorded as soon as it is done, before the thread is told: a note Slack refuses loses no record.
    const audit = (outcome: 'ok' | 'error', did: string) =>
      this.deps.audit.record({
        sessionId: session.sessionId,
        inputId: prompt.inputId,
        action: 'timeout',
        userId: 'bot',
        channelId: session.channelId,
        threadTs: threadPlace(session).cardTs,
        detail: { onTimeout: action, did, waitedMs: timeoutMs },
        outcome,
      });
    if (action === 'leave' || (action === 'reject' && request.kind !== 'approval')) {
      const why =
        action === 'leave'
          ? 'AGENT_ON_TIMEOUT is leave'
          : 'AGENT_ON_TIMEOUT=reject only rejects approval questions, and this one is not';
      await audit('ok', 'left open');
      await this.deps.notifier.note(
        session,
        `⌛ No answer after ${waited}. The question stays open (${why}); it can still be answered above.`,
      );
      return;
    }
    if (action === 'reject') {
      const reason = `No answer within ${waited} (AGENT_ON_TIMEOUT=reject)`;
      const checked = validateAnswer(request, { approved: false, reason });
      const claim = await this.deps.prompts.claim(prompt.sessionId, prompt.inputId, this.deps.botUserId());
      if (!checked.ok || !claim.claimed) return; // Someone answered in the meantime: nothing to do.
      const sent = await this.deps.answering.send({
        prompt,
        answer: checked.answer,
        userId: this.deps.botUserId(),
      });
      await audit(sent.ok ? 'ok' : 'error', 'rejected');
      await this.deps.notifier.note(
        session,
        sent.ok
          ? `⌛ No answer after ${waited}: the request was *rejected* automatically (AGENT_ON_TIMEOUT=reject).`
          : `⌛ No answer after ${waited}: rejecting it automatically failed (${sent.message}). The question is still open.`,
      );
      return;
    }
    try {
      await this.deps.client.sessions.cancel(session.sessionId, {
        reason: `No answer within ${waited} (AGENT_ON_TIMEOUT=cancel)`,
      });
    } catch (error) {
      await audit('error', 'cancel failed');
      await this.deps.notifier.note(
        session,
        `⌛ No answer after ${waited}: cancelling the session failed (${describeServiceFailure(error)}).`,
      );
      return;
    }
    await audit('ok', 'cancelled');
    await this.deps.notifier.note(
      session,
      `⌛ No answer after ${waited}: the session was *cancelled* (AGENT_ON_TIMEOUT=cancel).`,
    );
    this.deps.notifier.refresh(session.sessionId);
  }

  async #permalink(prompt: PromptInSession): Promise<string | undefined> {
    if (!prompt.messageTs) return undefined;
    try {
      const found = await this.deps.slack.chat.getPermalink({
        channel: prompt.channelId,
        message_ts: prompt.messageTs,
      });
      return found.permalink;
    } catch (error) {
      this.deps.logger.warn({ err: error, inputId: prompt.inputId }, 'could not link to a question');
      return undefined;
    }
  }
}
