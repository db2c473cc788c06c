import { describeAnswer, type HumanInputAnswer, SessionError, validateAnswer } from '@agent-sessions/core';
import type { ModalView } from '@slack/types';
import { answerModal, rejectModal } from '../../blocks/modals.js';
import { promptAsAnswered } from '../../blocks/prompt.js';
import { escapeMrkdwn } from '../../blocks/text.js';
import type { Logger } from '../../logger.js';
import { decodeRef } from '../../refs.js';
import type { PromptRepository } from '../../store/prompts.js';
import type { PromptInSession } from '../../store/records.js';
import { type AuditService, answerDetail, serviceAnswer } from '../ops/audit.js';
import type { BotMetrics } from '../ops/metrics.js';
import { describeServiceFailure, type FormResult, type Outcome, type SessionsApi } from '../outcome.js';
import type { SlackChat } from '../slack-out/outbound/index.js';
import { type Notifier, threadPlace } from '../slack-out/thread/index.js';
import { errorsFor, type RawAnswer, toInput } from './answer-input.js';
import type { ActPolicy } from './policy.js';
import type { SessionVisibility } from './visibility.js';

export interface Interaction {
  /** The ref the control carried (JSON or a short key). */
  ref: string | undefined;
  userId: string;
  answer: RawAnswer;
  /** The message clicked, when it was the prompt (its ts is a fallback when none was recorded). */
  clickedTs?: string;
  /**
   * The conversation the click was made in: in the session's own channel the person is looking at the
   * question, so a refusal may say why; from anywhere else, whoever may not see the session is told the
   * question isn't known.
   */
  seenIn?: string;
  /** An agent host answering for the person (MCP): named in the audit record. */
  host?: string;
}

/** A claimed prompt: this caller, and only it, sends the answer. */
export interface ClaimedAnswer {
  prompt: PromptInSession;
  answer: HumanInputAnswer;
  userId: string;
  clickedTs?: string;
  host?: string;
}

export type ClaimOutcome =
  | { ok: true; claimed: ClaimedAnswer }
  /** `errors`: by form block id, for a form to show under its inputs. */
  | { ok: false; message: string; errors: Record<string, string> };

const NOT_KNOWN = 'This question is not known here any more.';

/**
 * The one owner of answering: from a raw interaction to the service and back to Slack. It finds the
 * question, checks it is still open and who may answer, turns indexes into ids, claims it (first answer
 * wins), sends it and shows who answered. A click reads the store once and writes it twice.
 */
export class AnsweringService {
  constructor(
    private readonly deps: {
      client: SessionsApi<'respond'>;
      prompts: PromptRepository;
      slack: SlackChat<'update'>;
      policy: ActPolicy;
      /** Who may see a session: to anyone else its questions answer as unknown ones do. */
      visibility: Pick<SessionVisibility, 'maySee'>;
      notifier: Notifier;
      metrics: BotMetrics;
      logger: Logger;
      /** Every answer sent (or refused by the service) is recorded. */
      audit?: Pick<AuditService, 'record'>;
      /** Told of every answer the service took: the agent works again (Slack's session status). */
      answered?: (sessionId: string) => void;
    },
  ) {}

  /** Claims and sends at once: clicks, and text typed anywhere. */
  async answer(interaction: Interaction): Promise<Outcome> {
    const claim = await this.claim(interaction);
    if (!claim.ok) return { ok: false, message: claim.message };
    return this.send(claim.claimed);
  }

  /** A submitted answer or reject form: its problems, or the claimed answer to send once it closed. */
  async submitForm(interaction: Interaction): Promise<FormResult> {
    const claim = await this.claim(interaction);
    if (!claim.ok) return { ok: false, errors: claim.errors };
    return { ok: true, run: () => this.send(claim.claimed, { tellOnFailure: true }).then(() => {}) };
  }

  /** Reject and Answer open a form, once it is sure this person may answer a question still open. */
  async openForm(
    ref: string | undefined,
    userId: string,
    seenIn?: string,
  ): Promise<Outcome<{ view: ModalView }>> {
    const open = await this.#open(ref, userId, seenIn);
    if (!open.ok) return { ok: false, message: open.refused ? `🚫 ${open.message}` : open.message };
    const { prompt } = open;
    const view =
      prompt.request.kind === 'approval'
        ? rejectModal(prompt.sessionId, prompt.inputId, prompt.request.prompt)
        : answerModal(prompt.sessionId, prompt.request);
    return { ok: true, view };
  }

  /** Checks an answer and claims the question: exactly one caller anywhere gets `ok: true`. */
  async claim(interaction: Interaction): Promise<ClaimOutcome> {
    const open = await this.#open(interaction.ref, interaction.userId, interaction.seenIn);
    if (!open.ok) {
      return { ok: false, message: open.message, errors: { [formBlock(interaction.answer)]: open.message } };
    }
    const { prompt } = open;
    const input = toInput(prompt.request, interaction.answer, optionOf(interaction.ref));
    const checked = validateAnswer(prompt.request, input);
    if (!checked.ok) {
      return {
        ok: false,
        // Issues quote the agent's option labels and the value sent: escaped for the mrkdwn reply.
        message: escapeMrkdwn(checked.issues.map((i) => i.message).join('\n')),
        errors: errorsFor(checked.issues, prompt.request, formBlock(interaction.answer)),
      };
    }
    const claim = await this.deps.prompts.claim(prompt.sessionId, prompt.inputId, interaction.userId);
    if (!claim.claimed) {
      const message = claim.answeredBy
        ? `Already ${claim.state === 'answering' ? 'being answered' : 'answered'} by <@${claim.answeredBy}>.`
        : claim.state === 'missing'
          ? NOT_KNOWN
          : 'Already answered.';
      return { ok: false, message, errors: { [formBlock(interaction.answer)]: message } };
    }
    return {
      ok: true,
      claimed: {
        prompt,
        answer: checked.answer,
        userId: interaction.userId,
        ...(interaction.clickedTs ? { clickedTs: interaction.clickedTs } : {}),
        ...(interaction.host ? { host: interaction.host } : {}),
      },
    };
  }

  /**
   * Sends a claimed answer (one POST), then shows who answered what; on failure the question is open
   * again. `tellOnFailure`: the person is told privately, with their answer (a form has closed by then).
   */
  async send(claimed: ClaimedAnswer, options: { tellOnFailure?: boolean } = {}): Promise<Outcome> {
    const result = await this.#respond(claimed);
    if (!result.ok && options.tellOnFailure) {
      const typed = describeAnswer(claimed.prompt.request, claimed.answer);
      await this.deps.notifier.tell(
        claimed.prompt.channelId,
        claimed.userId,
        `⚠️ ${result.message}\nYour answer, so you don't have to type it again:\n> ${escapeMrkdwn(typed)}`,
      );
    }
    return result;
  }

  async #respond({ prompt, answer, userId, clickedTs, host }: ClaimedAnswer): Promise<Outcome> {
    const { client, prompts, metrics } = this.deps;
    const { action, detail } = answerDetail(prompt.request, answer);
    const audited = (error?: unknown) =>
      this.deps.audit?.record({
        sessionId: prompt.sessionId,
        inputId: prompt.inputId,
        action,
        detail: host ? { ...detail, via: host } : detail,
        userId,
        channelId: prompt.channelId,
        threadTs: threadPlace(prompt.session).cardTs,
        ...serviceAnswer(error),
      });
    try {
      await client.sessions.respond(prompt.sessionId, prompt.inputId, answer);
    } catch (error) {
      await audited(error);
      if (error instanceof SessionError && /already answered/i.test(error.message)) {
        // Answered outside Slack (the API, n8n): the question is closed either way.
        const at = await prompts.complete(prompt.sessionId, prompt.inputId, null);
        await this.#showAnswered(prompt, { answer: null, answeredBy: null, answeredAt: at }, clickedTs);
        return { ok: false, message: 'This question was already answered outside Slack.' };
      }
      await prompts.release(prompt.sessionId, prompt.inputId, userId);
      metrics.actions.inc({ kind: 'answer', outcome: 'error' });
      return {
        ok: false,
        message: `Your answer was not accepted: ${describeServiceFailure(error)}. The question is still open.`,
      };
    }
    metrics.actions.inc({ kind: 'answer', outcome: 'ok' });
    await audited();
    const at = await prompts.complete(prompt.sessionId, prompt.inputId, answer);
    await this.#showAnswered(prompt, { answer, answeredBy: userId, answeredAt: at }, clickedTs);
    this.deps.answered?.(prompt.sessionId);
    this.deps.notifier.refresh(prompt.sessionId);
    return { ok: true };
  }

  /**
   * The question a ref names, still open, and this person allowed to answer it — or why not. Whoever may
   * not see its session (and isn't looking at it in its channel) hears what an unknown question gets:
   * not whether or by whom it was answered, nor who may answer it.
   */
  async #open(
    ref: string | undefined,
    userId: string,
    seenIn: string | undefined,
  ): Promise<{ ok: true; prompt: PromptInSession } | { ok: false; message: string; refused?: true }> {
    const decoded = decodeRef(ref);
    const locator =
      decoded && 'refKey' in decoded
        ? { refKey: decoded.refKey }
        : decoded?.inputId
          ? { sessionId: decoded.sessionId, inputId: decoded.inputId }
          : undefined;
    const prompt = locator ? await this.deps.prompts.find(locator) : undefined;
    const seen =
      prompt !== undefined &&
      (seenIn === prompt.session.channelId || (await this.deps.visibility.maySee(userId, prompt.session)));
    if (!seen) return { ok: false, message: NOT_KNOWN };
    if (prompt.state === 'answered') {
      return {
        ok: false,
        message: prompt.answeredBy ? `Already answered by <@${prompt.answeredBy}>.` : 'Already answered.',
      };
    }
    const verdict = await this.deps.policy.mayAct(userId, {
      kind: 'answer',
      session: prompt.session,
      request: prompt.request,
    });
    if (!verdict.allowed) {
      this.deps.metrics.actions.inc({ kind: 'answer', outcome: 'refused' });
      return { ok: false, message: verdict.reason, refused: true };
    }
    return { ok: true, prompt };
  }

  async #showAnswered(
    prompt: PromptInSession,
    answered: { answer: HumanInputAnswer | null; answeredBy: string | null; answeredAt: string | null },
    clickedTs: string | undefined,
  ): Promise<void> {
    const ts = prompt.messageTs ?? clickedTs;
    if (!ts) return;
    const shown = promptAsAnswered({
      request: prompt.request,
      ...answered,
      ...(prompt.carried ? { carried: prompt.carried } : {}),
    });
    try {
      await this.deps.slack.chat.update({ channel: prompt.channelId, ts, ...shown });
    } catch (error) {
      this.deps.logger.warn({ err: error, inputId: prompt.inputId }, 'could not mark a prompt answered');
    }
  }
}

const optionOf = (ref: string | undefined): number | undefined => decodeRef(ref)?.option;

/** The form block a problem is shown under when it concerns no one input. */
const formBlock = (answer: RawAnswer): string =>
  answer.kind === 'reject'
    ? 'reason'
    : answer.kind === 'form' && !('answer' in answer.values)
      ? 'q_0'
      : 'answer';

export type { FormValues, RawAnswer } from './answer-input.js';
