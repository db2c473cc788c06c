import { startingCard } from '../../blocks/session-card.js';
import { escapeMrkdwn, truncate } from '../../blocks/text.js';
import type { Logger } from '../../logger.js';
import type { SessionRepository } from '../../store/sessions.js';
import { type AuditService, serviceAnswer } from '../ops/audit.js';
import type { BotMetrics } from '../ops/metrics.js';
import { describeServiceFailure, type FormResult, type Outcome, type SessionsApi } from '../outcome.js';
import { type SlackChat, slackErrorCode } from '../slack-out/outbound/index.js';
import type { Notifier } from '../slack-out/thread/index.js';
import type { FormValues } from './answering.js';
import { parseObject } from './json-object.js';
import type { Verdict } from './policy.js';

export interface StartInput {
  channelId: string;
  userId: string;
  goal: string;
  budget?: number;
  maxIterations?: number;
  context?: Record<string, unknown>;
  /** Started by a mention or a DM: the card is a reply in this thread, and the session's thread is it. */
  threadTs?: string;
  /** Said on the card: where the session came from ("Started from this thread, with 12 earlier messages"). */
  origin?: string;
  /** A channel of its own (a code channel) instead of the thread; false: the thread, whatever the default. */
  codeChannel?: boolean;
  /** Its own channel stays open at the end (else archived). */
  keepCodeChannel?: boolean;
  /** Started by a Workflow Builder step: named in the start's record. */
  workflow?: { executionId: string; step?: string };
  /**
   * `workspace`: nobody ran the workflow, so the session is the workspace's, under its own key, and the
   * record names the workflow as its starter (`userId` is only the card's and the thread's).
   */
  runsAs?: 'workspace';
  /** An agent host starting it for the person (MCP): named in the audit record. */
  host?: string;
}

type StartKey =
  | { ok: true; ref: string | undefined; client: SessionsApi<'create'> }
  | { ok: false; message: string };

/** Who the start's record names: the person, or the workflow that started a session nobody ran. */
const recordedStarter = (input: StartInput): string =>
  input.runsAs === 'workspace' && input.workflow ? `workflow:${input.workflow.executionId}` : input.userId;

/** Why the bot can't post where a session was asked for, in words for the person who asked. */
function cannotPostHere(error: unknown): string {
  const code = slackErrorCode(error);
  if (code === 'channel_not_found' || code === 'not_in_channel')
    return 'I can’t post in this conversation, so its session card would have nowhere to go. In a private channel, invite me first (`/invite` and my name) and start it again; a direct message between people is closed to me, so use a channel or my own DM.';
  if (code === 'is_archived') return 'This channel is archived.';
  return `I couldn’t post the session card here (${code ?? 'Slack could not be reached'}).`;
}

export { parseObject } from './json-object.js';

/** The refusal for someone starting a session in a channel they are not in. */
export const notInChannel = (channelId: string): string =>
  `You’re not in <#${channelId}>, so you can’t start a session there: join the channel first, or start it in a channel you’re in.`;

/** Starting a session from Slack: the card first, then the session, then following it. */
export class StartingService {
  constructor(
    private readonly deps: {
      client: SessionsApi<'create'>;
      sessions: Pick<SessionRepository, 'create'>;
      slack: SlackChat<'postMessage' | 'delete'>;
      channelAllowed: (channelId: string) => Verdict;
      /**
       * Whether the person is in the channel (undefined: Slack can't tell): nobody starts a session in a
       * channel they are not in, where Slack would not let them post. Without it, not checked.
       */
      inChannel?: (userId: string, channelId: string) => Promise<boolean | undefined>;
      notifier: Notifier;
      metrics: BotMetrics;
      logger: Logger;
      /** The new session's card shown at once (its own channel made, if asked), and this replica following it. */
      started: (sessionId: string, input: StartInput) => Promise<void>;
      /** Every session started is recorded. */
      audit?: Pick<AuditService, 'record'>;
      /** AGENT_MAX_BUDGET: no session starts with more; an approver may raise it later. */
      maxBudget?: number;
      /** A channel's defaults (`/agent settings`), filled in where the start leaves them out. */
      withDefaults?: (input: StartInput) => Promise<StartInput>;
      /** The key a person's sessions run under; without it, `client`'s. */
      keys?: {
        forStart(userId: string): Promise<StartKey>;
        /** The workspace's own key: a start nobody made as a person (a workflow run from a schedule). */
        forWorkspace(): Promise<StartKey>;
      };
    },
  ) {}

  /**
   * Whether `asked` can start, as `start` would decide it before posting anything (the channel's
   * defaults filled in, the allowlist, the starter's membership, the budget ceiling, the key): the input
   * as it would start, and its key; or why not. Nothing is posted or started.
   */
  async check(
    asked: StartInput,
  ): Promise<Outcome<{ input: StartInput; key: Extract<StartKey, { ok: true }> | undefined }>> {
    const input = this.deps.withDefaults ? await this.deps.withDefaults(asked) : asked;
    // The same rule for a DM as for a channel (AGENT_ALLOWED_CHANNELS lists `dm` to allow them).
    const channel = this.deps.channelAllowed(input.channelId);
    if (!channel.allowed) return { ok: false, message: channel.reason };
    if ((await this.deps.inChannel?.(input.userId, input.channelId)) === false) {
      this.deps.metrics.actions.inc({ kind: 'start', outcome: 'refused' });
      return { ok: false, message: notInChannel(input.channelId) };
    }
    const typed = `\nYour goal was:\n> ${escapeMrkdwn(truncate(input.goal, 2500))}`;
    const { maxBudget } = this.deps;
    if (input.budget !== undefined && maxBudget !== undefined && input.budget > maxBudget) {
      const cap = `$${maxBudget.toFixed(2)}`;
      return {
        ok: false,
        message: `A session starts with at most ${cap} (AGENT_MAX_BUDGET): start it with less, and an approver can raise it later.${typed}`,
      };
    }
    // Under the starter's key (their own, or their workspace's), chosen by who starts: refused before any card.
    const { keys } = this.deps;
    const key = !keys
      ? undefined
      : input.runsAs === 'workspace'
        ? await keys.forWorkspace()
        : await keys.forStart(input.userId);
    if (key && !key.ok) return { ok: false, message: `${key.message}${typed}` };
    return { ok: true, input, key };
  }

  async start(asked: StartInput): Promise<Outcome<{ sessionId: string }>> {
    const { metrics, slack, logger } = this.deps;
    const checked = await this.check(asked);
    if (!checked.ok) return checked;
    const { input, key } = checked;
    const typed = `\nYour goal was:\n> ${escapeMrkdwn(truncate(input.goal, 2500))}`;
    const client = key?.client ?? this.deps.client;
    // The card first: where the bot may not post (a private channel it wasn't invited to), nothing is
    // started, rather than a session nobody can see.
    let cardTs: string;
    try {
      const posted = await slack.chat.postMessage({
        channel: input.channelId,
        ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
        ...startingCard(input.goal, input.userId, input.origin),
      });
      cardTs = String(posted.ts);
    } catch (error) {
      metrics.actions.inc({ kind: 'start', outcome: 'error' });
      // Usually a private channel the bot wasn't invited to: the person is told how to fix it.
      logger.info({ err: error, channel: input.channelId }, 'could not post a new session card');
      return { ok: false, message: `${cannotPostHere(error)} Nothing was started.${typed}` };
    }
    const guardrails = {
      ...(input.budget === undefined ? {} : { maxCostPerSession: input.budget }),
      ...(input.maxIterations === undefined ? {} : { maxIterations: input.maxIterations }),
    };
    let sessionId: string;
    try {
      const created = await client.sessions.create({
        goal: input.goal,
        ...(input.context ? { context: input.context } : {}),
        ...(Object.keys(guardrails).length > 0 ? { guardrails } : {}),
      });
      sessionId = created.sessionId;
    } catch (error) {
      metrics.actions.inc({ kind: 'start', outcome: 'error' });
      logger.warn({ err: error }, 'creating a session failed');
      await slack.chat
        .delete({ channel: input.channelId, ts: cardTs })
        .catch((e: unknown) => logger.warn({ err: e }, 'could not remove a card nobody needs'));
      return { ok: false, message: `Could not start the session: ${describeServiceFailure(error)}${typed}` };
    }
    metrics.actions.inc({ kind: 'start', outcome: 'ok' });
    await this.deps.audit?.record({
      sessionId,
      action: 'start',
      userId: recordedStarter(input),
      channelId: input.channelId,
      threadTs: cardTs,
      detail: {
        goal: input.goal,
        ...(Object.keys(guardrails).length > 0 ? { guardrails } : {}),
        ...(input.context ? { context: input.context } : {}),
        ...(input.workflow ? { workflow: input.workflow } : {}),
        ...(input.host ? { via: input.host } : {}),
      },
      ...serviceAnswer(),
    });
    await this.deps.sessions.create({
      sessionId,
      channelId: input.channelId,
      cardTs,
      startedBy: input.userId,
      goal: input.goal,
      budget: input.budget ?? null,
      ...(input.threadTs ? { threadTs: input.threadTs } : {}),
      ...(input.origin ? { origin: input.origin } : {}),
      ...(key?.ref ? { keyRef: key.ref } : {}),
    });
    await this.deps.started(sessionId, input);
    return { ok: true, sessionId };
  }

  /** The start form: every field checked, each problem shown under its input, nothing typed lost. */
  submitForm(channelId: string | undefined, userId: string, values: FormValues): FormResult {
    const errors: Record<string, string> = {};
    const text = (block: string) => {
      const value = values[block];
      return typeof value === 'string' && value !== '' ? value : undefined;
    };
    const goal = text('goal');
    if (!goal) errors.goal = 'Tell the agent what to do';
    const budgetText = text('budget');
    const budget = budgetText === undefined ? undefined : Number(budgetText.replace(/^\$/, ''));
    if (budget !== undefined && !(Number.isFinite(budget) && budget > 0)) {
      errors.budget = 'The budget must be a positive number of dollars, like 5 or 2.50';
    }
    const iterationsText = text('max_iterations');
    const maxIterations = iterationsText === undefined ? undefined : Number(iterationsText);
    if (maxIterations !== undefined && !(Number.isInteger(maxIterations) && maxIterations > 0)) {
      errors.max_iterations = 'Max iterations must be a whole number above 0';
    }
    const contextText = text('context');
    let context: Record<string, unknown> | undefined;
    if (contextText !== undefined) {
      const parsed = parseObject(contextText);
      if (parsed.ok) context = parsed.value;
      else errors.context = parsed.error;
    }
    if (!channelId) errors.goal = 'This form lost its channel; run /agent start again';
    if (Object.keys(errors).length > 0 || !goal || !channelId) return { ok: false, errors };
    return {
      ok: true,
      run: async () => {
        const result = await this.start({
          channelId,
          userId,
          goal,
          ...(budget === undefined ? {} : { budget }),
          ...(maxIterations === undefined ? {} : { maxIterations }),
          ...(context ? { context } : {}),
        });
        if (!result.ok) await this.deps.notifier.tell(channelId, userId, `⚠️ ${result.message}`);
      },
    };
  }
}
