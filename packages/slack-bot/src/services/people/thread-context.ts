/**
 * A thread as a new session's context, within Slack's read limits. Commercially distributed apps outside
 * the Marketplace may call conversations.replies once a minute per workspace, 15 messages a call: the
 * messages the bot already received as events are kept (bounded, per workspace, in the store) and the
 * context is built from them first; Slack is read only for what is missing (the thread's start, when the
 * root was never received), within a budget every replica shares. What could not be had is said, to the
 * agent and on the card.
 */
import type { Logger } from '../../logger.js';
import type { SlackBudgetRepository } from '../../store/slack-budgets.js';
import type { ThreadMessage, ThreadMessageRepository } from '../../store/thread-messages.js';
import { cacheKey, currentWorkspace, workspaceScope } from '../../workspace.js';
import { type SlackClient, slackErrorCode } from '../slack-out/outbound/index.js';

/** How a thread becomes a session's context: the last 50 messages or 12,000 characters, whichever is smaller. */
export const THREAD_CONTEXT_LIMITS = { messages: 50, characters: 12_000 } as const;

export interface SlackThreadContext {
  teamId: string;
  channelId: string;
  threadTs: string;
  permalink: string | null;
  messages: Array<{
    userId: string;
    name: string;
    text: string;
    ts: string;
    files: Array<{ name: string; permalink: string }>;
  }>;
  /** Said when not every earlier message is here. */
  cut?: string;
}

export interface ThreadContextLimits {
  /** Messages kept per workspace (0: none kept). */
  cacheMessages: number;
  cacheRetentionMs: number;
  /** conversations.replies calls a minute per workspace, every replica together. */
  readsPerMinute: number;
  /** Messages asked for in one read. */
  readLimit: number;
}

/** Where a mention in a thread came from: the message's fields the context needs. */
export interface MentionPlace {
  teamId: string;
  channelId: string;
  userId: string;
  text: string;
  ts: string;
  threadTs: string | undefined;
}

/** The context, and how the card says what it holds ("with 12 earlier messages"). */
export interface ThreadContextRead {
  context: SlackThreadContext;
  said: string;
}

/** Messages kept between two passes dropping what is past the limits (per workspace, per process). */
const PRUNE_EVERY = 200;

export class ThreadContextReader {
  readonly #names = new Map<string, string>();
  readonly #sincePrune = new Map<string, number>();

  constructor(
    private readonly deps: {
      messages: ThreadMessageRepository;
      budgets: Pick<SlackBudgetRepository, 'take'>;
      slack: {
        conversations: Pick<SlackClient['conversations'], 'replies'>;
        chat: Pick<SlackClient['chat'], 'getPermalink'>;
        users: Pick<SlackClient['users'], 'info'>;
      };
      logger: Logger;
      limits: ThreadContextLimits;
    },
  ) {}

  /** A person's message the events brought: kept for a later mention in its thread (never fails the event). */
  async remember(message: MentionPlace & { files?: ThreadMessage['files'] }): Promise<void> {
    const { limits } = this.deps;
    if (limits.cacheMessages === 0) return;
    const workspace = this.#workspace();
    try {
      const fresh = await this.deps.messages.remember(workspace, {
        channelId: message.channelId,
        threadTs: message.threadTs ?? message.ts,
        ts: message.ts,
        userId: message.userId,
        text: message.text,
        files: message.files ?? [],
      });
      if (fresh) await this.#pruneNowAndThen(workspace);
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'could not keep a received message for thread context');
    }
  }

  /** The thread before the mention, bounded: the session's `context.slack`, and what the card says of it. */
  async read(message: MentionPlace, threadTs: string): Promise<ThreadContextRead> {
    const { limits } = this.deps;
    const workspace = this.#workspace();
    // What is past the retention goes before any read: the pass on new messages may not have run for a
    // while in a quiet workspace, and an expired message must never reach an agent.
    if (limits.cacheMessages > 0)
      await this.#prune(workspace).catch((error: unknown) =>
        this.deps.logger.warn({ err: error }, 'could not drop expired thread messages'),
      );
    const kept =
      limits.cacheMessages > 0
        ? await this.deps.messages
            .thread(workspace, message.channelId, threadTs, message.ts, THREAD_CONTEXT_LIMITS.messages + 1)
            .catch((error: unknown) => {
              this.deps.logger.warn({ err: error }, 'could not read kept thread messages');
              return { messages: [], kept: 0, rootKept: false };
            })
        : { messages: [], kept: 0, rootKept: false };
    let earlier: ThreadMessage[] = kept.messages;
    let total = kept.kept;
    let gap: string | undefined;
    if (!kept.rootKept) {
      const read = await this.#readSlack(message, threadTs, workspace);
      if (read.ok) {
        const seen = new Set(earlier.map((m) => m.ts));
        const fromSlack = read.messages.filter((m) => tsBefore(m.ts, message.ts) && !seen.has(m.ts));
        earlier = [...fromSlack, ...earlier].sort((a, b) => (tsBefore(a.ts, b.ts) ? -1 : 1));
        total += fromSlack.length;
        // Slack had more than one read gives, and what the events brought doesn't reach back that far.
        const lastRead = read.messages.at(-1)?.ts;
        const joined = lastRead !== undefined && kept.messages[0] && !tsBefore(lastRead, kept.messages[0].ts);
        if (read.more && !joined) gap = 'messages between its first ones and the latest could not be read';
        // Read whole: kept, so the next mention in this thread needs no read.
        if (!read.more && limits.cacheMessages > 0)
          for (const m of fromSlack) await this.deps.messages.remember(workspace, m).catch(() => false);
      } else gap = read.why;
    }
    return this.#bounded(message, threadTs, earlier, total, gap);
  }

  /** One conversations.replies call, if the workspace's budget has one now (else none: Slack would refuse). */
  async #readSlack(
    message: MentionPlace,
    threadTs: string,
    workspace: string,
  ): Promise<{ ok: true; messages: ThreadMessage[]; more: boolean } | { ok: false; why: string }> {
    const { limits, slack, logger } = this.deps;
    const rate = {
      perSecond: limits.readsPerMinute / 60,
      burst: Math.max(1, Math.floor(limits.readsPerMinute)),
    };
    const wait = await this.deps.budgets.take(`${workspace}:conversations.replies`, rate).catch(() => 0); // without the database, Slack's own answer decides
    const perMinute = `Slack allows ${limits.readsPerMinute} thread read${limits.readsPerMinute === 1 ? '' : 's'} a minute`;
    if (wait > 0) return { ok: false, why: `its start could not be read, ${perMinute}` };
    try {
      const page = await slack.conversations.replies({
        channel: message.channelId,
        ts: threadTs,
        limit: limits.readLimit,
      });
      const messages = ((page.messages ?? []) as Array<Record<string, unknown>>)
        .filter((m) => typeof m.ts === 'string')
        .map((m) => messageOf(m, message.channelId, threadTs));
      return { ok: true, messages, more: page.has_more === true };
    } catch (error) {
      const code = slackErrorCode(error) ?? 'Slack could not be reached';
      logger.warn({ err: error, channel: message.channelId }, 'could not read the thread for context');
      return {
        ok: false,
        why: code === 'ratelimited' ? `it could not be read, ${perMinute}` : `it could not be read (${code})`,
      };
    }
  }

  /** The newest messages within both bounds, named, with what was left out said. */
  async #bounded(
    message: MentionPlace,
    threadTs: string,
    earlier: ThreadMessage[],
    total: number,
    gap: string | undefined,
  ): Promise<ThreadContextRead> {
    const limits = THREAD_CONTEXT_LIMITS;
    const shown: SlackThreadContext['messages'] = [];
    let characters = 0;
    for (const m of [...earlier].reverse()) {
      if (shown.length >= limits.messages || characters + m.text.length > limits.characters) break;
      characters += m.text.length;
      shown.unshift({
        userId: m.userId,
        name: await this.#nameOf(m.userId),
        text: m.text,
        ts: m.ts,
        files: m.files,
      });
    }
    const left = Math.max(0, total - shown.length);
    const n = shown.length;
    const plural = (k: number) => `${k} earlier message${k === 1 ? '' : 's'}`;
    const cutParts: string[] = [];
    if (left > 0)
      cutParts.push(
        `Only the last ${n} message${n === 1 ? '' : 's'} of the thread are here (at most ${limits.messages} messages or ${limits.characters.toLocaleString('en-US')} characters); ${left} earlier left out.`,
      );
    if (gap) cutParts.push(`Not the whole thread: ${gap}.`);
    const said =
      n === 0 && gap
        ? `without its earlier messages (${gap})`
        : `with ${left > 0 ? `the last ${n} of ${plural(total)}` : plural(n)}${gap ? ` (not the whole thread: ${gap})` : ''}`;
    return {
      context: {
        teamId: message.teamId,
        channelId: message.channelId,
        threadTs,
        permalink: await this.#permalink(message.channelId, threadTs),
        messages: shown,
        ...(cutParts.length > 0 ? { cut: cutParts.join(' ') } : {}),
      },
      said,
    };
  }

  async #permalink(channel: string, threadTs: string): Promise<string | null> {
    try {
      const link = await this.deps.slack.chat.getPermalink({ channel, message_ts: threadTs });
      return link.permalink ?? null;
    } catch (error) {
      this.deps.logger.debug({ err: error }, 'no permalink for the thread');
      return null;
    }
  }

  async #nameOf(userId: string): Promise<string> {
    const known = this.#names.get(cacheKey(userId));
    if (known !== undefined) return known;
    let name = userId;
    if (/^[UW]/.test(userId)) {
      try {
        const info = await this.deps.slack.users.info({ user: userId });
        name = info.user?.profile?.display_name || info.user?.real_name || info.user?.name || userId;
      } catch (error) {
        this.deps.logger.debug({ err: error, userId }, 'no name for a user');
      }
    }
    this.#names.set(cacheKey(userId), name);
    return name;
  }

  /** The workspace's key for what is kept ('' with one token and no workspace). */
  #workspace(): string {
    const workspace = currentWorkspace();
    return workspace ? workspaceScope(workspace) : '';
  }

  async #pruneNowAndThen(workspace: string): Promise<void> {
    const count = (this.#sincePrune.get(workspace) ?? 0) + 1;
    this.#sincePrune.set(workspace, count);
    if (count < Math.min(PRUNE_EVERY, Math.max(1, Math.floor(this.deps.limits.cacheMessages / 10)))) return;
    this.#sincePrune.set(workspace, 0);
    await this.#prune(workspace);
  }

  async #prune(workspace: string): Promise<void> {
    await this.deps.messages.prune(workspace, {
      messages: this.deps.limits.cacheMessages,
      retentionMs: this.deps.limits.cacheRetentionMs,
    });
  }
}

function messageOf(m: Record<string, unknown>, channelId: string, threadTs: string): ThreadMessage {
  return {
    channelId,
    threadTs,
    ts: String(m.ts),
    userId: String(m.user ?? m.bot_id ?? ''),
    text: typeof m.text === 'string' ? m.text : '',
    files: Array.isArray(m.files)
      ? (m.files as Array<Record<string, unknown>>).map((f) => ({
          name: String(f.name ?? f.title ?? ''),
          permalink: String(f.permalink ?? ''),
        }))
      : [],
  };
}

/** Whether Slack ts `a` is before `b` (same-length integer parts compare as text; else by length). */
export function tsBefore(a: string, b: string): boolean {
  const [ai = '', af = ''] = a.split('.');
  const [bi = '', bf = ''] = b.split('.');
  if (ai.length !== bi.length) return ai.length < bi.length;
  if (ai !== bi) return ai < bi;
  return af.padEnd(6, '0') < bf.padEnd(6, '0');
}
