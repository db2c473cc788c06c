/**
 * A session in a channel of its own (Slack's code channels): made once the card is out, linked to it and
 * keyed by the session id; its context bar and tabs drawn at the card's coalesced pace; the report as a
 * canvas; at the end archived with the report shared back to the origin thread, or kept open with the
 * summary posted there. Every step is recorded in the store once done, so a restart or another replica
 * goes on from there. Where Slack refuses the feature, the session stays in its thread (the reason logged,
 * as the agent surface falls back).
 */
import type { FollowedSession } from '@agent-sessions/core';
import type { LRUCache } from 'lru-cache';
import type { MessageText } from '../../blocks/agent-message.js';
import {
  CHANNEL_COMMANDS,
  type CodeChannelDisplay as ChannelView,
  channelName,
  channelSummary,
  contextBar,
  planView,
  questionsView,
  reportCanvas,
} from '../../blocks/code-channel.js';
import { finalReport } from '../../blocks/report.js';
import type { Logger } from '../../logger.js';
import type { CodeChannelEnd, CodeChannelRepository } from '../../store/code-channels.js';
import type { SessionRecord } from '../../store/records.js';
import type { SessionRepository } from '../../store/sessions.js';
import { isPublicChannelId } from '../people/channel-privacy.js';
import { isFeatureMissing } from '../slack-out/agent-surface/index.js';
import {
  type OutboundPriority,
  type SlackClient,
  type SlackMethod,
  slackErrorCode,
} from '../slack-out/outbound/index.js';
import type { Place, ThreadMessage } from '../slack-out/thread/index.js';
import { ttlCache } from '../ttl-cache.js';

export interface CodeChannelDeps {
  store: {
    sessions: Pick<SessionRepository, 'get'>;
    codeChannels: CodeChannelRepository;
  };
  slack: Pick<SlackClient, 'agents' | 'conversations' | 'canvases'>;
  outbound: {
    run<T>(call: {
      channel: string;
      priority: OutboundPriority;
      method: SlackMethod;
      tag?: string;
      run: () => Promise<T>;
    }): Promise<T>;
  };
  /** Posts exactly once per key (the thread poster); text laid out as the thread's (parts, or a file). */
  poster: {
    post(place: Place, key: string, message: ThreadMessage): Promise<string>;
    postText(place: Place, key: string, text: MessageText, priority?: OutboundPriority): Promise<string[]>;
  };
  logger: Logger;
  /** After Slack refused code channels in a workspace, sessions there stay in their thread this long. */
  retryAfterMs?: number;
  now?: () => number;
}

interface Drawing {
  session: SessionRecord;
  snapshot: FollowedSession | undefined;
}

const DEFAULT_RETRY_MS = 60 * 60 * 1000;
/** Workspaces whose refusal is remembered (the least recently asked forgotten first: they ask Slack again). */
const MAX_REFUSED_WORKSPACES = 10_000;

export class CodeChannels {
  /** Each workspace's refusal (Slack's reason), kept while sessions there don't ask again. */
  readonly #refused: LRUCache<string, string>;
  /** The latest state to draw per session, and whether a drawing is queued. */
  readonly #waiting = new Map<string, Drawing>();
  /** The drawing under way per session (the end waits for it, then draws the final state itself). */
  readonly #drawing = new Map<string, Promise<void>>();
  /** The making under way per session: a start and a take-over asking at once make (or are refused) once. */
  readonly #ensuring = new Map<string, Promise<string | undefined>>();

  constructor(private readonly deps: CodeChannelDeps) {
    const ttlMs = deps.retryAfterMs ?? DEFAULT_RETRY_MS;
    this.#refused = ttlCache({ max: MAX_REFUSED_WORKSPACES, ttlMs, now: () => this.#now() });
  }

  #now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  /** A new session asked for a channel of its own: recorded, then made (the card must be out). */
  async open(sessionId: string, atEnd: CodeChannelEnd): Promise<void> {
    await this.deps.store.codeChannels.want(sessionId, atEnd);
    await this.ensure(sessionId);
  }

  /**
   * Makes the channel of a session that wants one and has none yet (a start, or a restart after a crash
   * between the two): Slack's create is idempotent by session id, so a second try gets the same channel.
   */
  ensure(sessionId: string): Promise<string | undefined> {
    const under = this.#ensuring.get(sessionId);
    if (under) return under;
    const making = this.#makeIfWanted(sessionId).finally(() => this.#ensuring.delete(sessionId));
    this.#ensuring.set(sessionId, making);
    return making;
  }

  /** The one try `ensure` shares among its callers: made if still wanted and the session can have it. */
  async #makeIfWanted(sessionId: string): Promise<string | undefined> {
    const { codeChannels, sessions } = this.deps.store;
    const row = await codeChannels.get(sessionId);
    if (row?.state === 'open') return row.channelId ?? undefined;
    if (row?.state !== 'wanted') return undefined;
    const session = await sessions.get(sessionId);
    if (!session?.cardTs || session.finished) return undefined;
    const workspace = session.workspace ?? '';
    const refusal = this.#refused.get(workspace);
    if (refusal !== undefined) {
      await codeChannels.refused(sessionId, refusal);
      this.deps.logger.info(
        { sessionId, reason: refusal },
        'code channels refused here: the session stays in its thread',
      );
      return undefined;
    }
    let channelId: string;
    try {
      channelId = await this.#create(session);
    } catch (error) {
      const code = slackErrorCode(error);
      if (code && isFeatureMissing(code)) {
        this.#refused.set(workspace, code);
        await codeChannels.refused(sessionId, code);
        this.deps.logger.warn(
          { sessionId, reason: code },
          'Slack refused a channel of its own for the session: it stays in its thread',
        );
        return undefined;
      }
      // Anything else (a timeout, a 5xx): still wanted, tried again when the session is next taken up.
      this.deps.logger.warn({ err: error, sessionId }, 'could not make the session its own channel');
      return undefined;
    }
    await codeChannels.opened(sessionId, channelId);
    await this.#settle(session, channelId);
    return channelId;
  }

  async #create(session: SessionRecord): Promise<string> {
    // The message that started it: a mention's own (its author is invited), else the card.
    const originTs = session.threadTs ?? (session.cardTs as string);
    const isPrivate = !(await this.#isPublic(session.channelId, session.sessionId));
    const created = await this.#call(
      session.channelId,
      'agents.conversations.create',
      session.sessionId,
      () =>
        this.deps.slack.agents.conversations.create({
          name: channelName(session.goal),
          session_id: session.sessionId,
          is_private: isPrivate,
          origin_channel_id: session.channelId,
          origin_message_ts: originTs,
        }),
    );
    const channelId = (created as { channel_id?: unknown }).channel_id;
    if (typeof channelId !== 'string' || channelId === '') throw new Error('Slack gave no channel_id');
    return channelId;
  }

  /**
   * Whether the origin is a public channel, the one case where the session's channel may be public too:
   * a DM, a group DM or a private channel (or one Slack won't describe) gives a private channel, whatever
   * Slack's default for the origin would be.
   */
  #isPublic(channelId: string, sessionId: string): Promise<boolean> {
    return isPublicChannelId(
      channelId,
      (id) =>
        this.#call(id, 'conversations.info', sessionId, () =>
          this.deps.slack.conversations.info({ channel: id }),
        ),
      (error) =>
        this.deps.logger.warn(
          { err: error, sessionId },
          "could not tell the origin's privacy: a private channel",
        ),
    );
  }

  /** The starter invited, the commands registered, a line each side: once per session, by its keys. */
  async #settle(session: SessionRecord, channelId: string): Promise<void> {
    const { sessionId } = session;
    await this.#call(channelId, 'conversations.invite', sessionId, () =>
      this.deps.slack.conversations.invite({ channel: channelId, users: session.startedBy }),
    ).catch((error: unknown) => {
      if (slackErrorCode(error) !== 'already_in_channel')
        this.deps.logger.warn({ err: error, sessionId }, 'could not invite the starter to its channel');
    });
    await this.#call(channelId, 'agents.conversations.setCommands', sessionId, () =>
      this.deps.slack.agents.conversations.setCommands({
        channel_id: channelId,
        commands: CHANNEL_COMMANDS.map((c) => ({ ...c })),
      }),
    ).catch((error: unknown) =>
      this.deps.logger.warn({ err: error, sessionId }, "could not register the agent's channel commands"),
    );
    const here: Place = { sessionId, channelId, cardTs: null };
    await this.deps.poster.post(here, 'code-channel:intro', {
      text: `This channel is the session \`${sessionId}\`, started by <@${session.startedBy}> in <#${session.channelId}>. Reply here to answer the agent or give it a new direction (\`!aside\` keeps a message out of its way); its commands are /pause, /resume, /cancel, /redirect, /budget and /agent-status.`,
    });
    const origin: Place = {
      sessionId,
      channelId: session.channelId,
      cardTs: session.threadTs ?? session.cardTs,
    };
    await this.deps.poster.post(origin, 'code-channel:link', {
      text: `The agent works on this in <#${channelId}>; its summary comes back here at the end.`,
    });
    this.shown({ ...session, codeChannelId: channelId }, undefined);
  }

  /** The card is being drawn: the channel's bar and tabs show the same state, coalesced per session. */
  shown(session: SessionRecord, snapshot: FollowedSession | undefined): void {
    if (!session.codeChannelId) return;
    this.#waiting.set(session.sessionId, { session, snapshot });
    if (this.#drawing.has(session.sessionId)) return;
    this.#drawing.set(session.sessionId, this.#drawAll(session.sessionId));
  }

  async #drawAll(sessionId: string): Promise<void> {
    try {
      for (let next = this.#waiting.get(sessionId); next; next = this.#waiting.get(sessionId)) {
        this.#waiting.delete(sessionId);
        await this.#draw(next).catch((error: unknown) =>
          this.deps.logger.warn({ err: error, sessionId }, "could not update the session's channel"),
        );
      }
    } finally {
      this.#drawing.delete(sessionId);
    }
  }

  async #draw({ session, snapshot }: Drawing): Promise<void> {
    const row = await this.deps.store.codeChannels.get(session.sessionId);
    const channelId = row?.channelId;
    if (row?.state !== 'open' || !channelId) return;
    const { slack } = this.deps;
    const state: ChannelView = {
      sessionId: session.sessionId,
      goal: session.goal,
      status: snapshot?.status ?? session.status,
      startedBy: session.startedBy,
      budget: session.budget,
      createdAt: session.createdAt,
      snapshot,
      now: this.#now(),
    };
    const call = <T>(method: SlackMethod, run: () => Promise<T>) =>
      this.#call(channelId, method, session.sessionId, run, 'edit');
    await call('agents.conversations.setProperties', () =>
      slack.agents.conversations.setProperties({
        channel_id: channelId,
        code_channel: { context_bar_items: contextBar(state) },
      }),
    );
    // A tab is upserted by its view_key.
    const tab = (viewKey: string, name: string, blocks: ReturnType<typeof planView>) =>
      call('agents.conversations.setView', () =>
        slack.agents.conversations.setView({
          channel_id: channelId,
          type: 'block_kit',
          view_key: viewKey,
          name,
          blocks,
        }),
      );
    await tab('plan', 'Plan', planView(state));
    const questions = await this.deps.store.codeChannels.questions(session.sessionId);
    await tab('questions', 'Questions', questionsView(questions));
  }

  /**
   * The report is out in the channel: its canvas (made once), then the end the channel's setting chose —
   * archived, Slack sharing the report back as a reply on the origin message, or kept open with the
   * summary posted back to the origin thread (once, by its key).
   */
  async finished(
    session: SessionRecord,
    reportTs: string | undefined,
    report: FollowedSession,
  ): Promise<void> {
    const { codeChannels } = this.deps.store;
    const row = await codeChannels.get(session.sessionId);
    const channelId = row?.channelId;
    if (row?.state !== 'open' || !channelId) return;
    // The last state drawn before the channel closes: whatever drawing was under way, then the end's.
    this.#waiting.delete(session.sessionId);
    await this.#drawing.get(session.sessionId);
    await this.#draw({ session: { ...session, status: report.status }, snapshot: report }).catch(
      (error: unknown) =>
        this.deps.logger.warn(
          { err: error, sessionId: session.sessionId },
          "could not update the session's channel",
        ),
    );
    await this.#canvas(session, channelId, row.canvasId, reportCanvas(session.goal, report)).catch(
      (error: unknown) =>
        this.deps.logger.warn(
          { err: error, sessionId: session.sessionId },
          'could not show the report as a canvas',
        ),
    );
    if (row.atEnd === 'keep') {
      const origin: Place = {
        sessionId: session.sessionId,
        channelId: session.channelId,
        cardTs: session.threadTs ?? session.cardTs,
      };
      await this.deps.poster.postText(
        origin,
        'code-channel:summary',
        channelSummary(channelId, finalReport(report)),
        'urgent',
      );
    } else {
      await this.#call(channelId, 'agents.conversations.archive', session.sessionId, () =>
        this.deps.slack.agents.conversations.archive({
          channel_id: channelId,
          ...(reportTs ? { summary_message_ts: reportTs } : {}),
        }),
      ).catch((error: unknown) => {
        // Archived already (a crash after Slack archived it, before this was recorded): done.
        if (slackErrorCode(error) !== 'already_archived') throw error;
      });
    }
    await codeChannels.close(session.sessionId);
    this.#waiting.delete(session.sessionId);
  }

  async #canvas(session: SessionRecord, channelId: string, made: string | null, content: string) {
    const { slack } = this.deps;
    let canvasId = made;
    if (!canvasId) {
      const created = await this.#call(channelId, 'canvases.create', session.sessionId, () =>
        slack.canvases.create({ title: 'Report', document_content: { type: 'markdown', markdown: content } }),
      );
      canvasId = typeof created.canvas_id === 'string' ? created.canvas_id : null;
      if (!canvasId) return;
      await this.deps.store.codeChannels.canvas(session.sessionId, canvasId);
    }
    const id = canvasId;
    await this.#call(channelId, 'agents.conversations.setView', session.sessionId, () =>
      slack.agents.conversations.setView({
        channel_id: channelId,
        type: 'canvas',
        view_key: 'report',
        name: 'Report',
        canvas_id: id,
        access_level: 'comment',
      }),
    );
    await this.#call(channelId, 'agents.conversations.setCanvasContent', session.sessionId, () =>
      slack.agents.conversations.setCanvasContent({ channel: channelId, canvas_id: id, content }),
    );
  }

  /** Every call through the outbound queue, spending its method's limit. */
  #call<T>(
    channel: string,
    method: SlackMethod,
    tag: string,
    run: () => Promise<T>,
    priority: OutboundPriority = 'urgent',
  ): Promise<T> {
    return this.deps.outbound.run({ channel, priority, method, tag, run });
  }
}
