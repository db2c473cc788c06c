import { type Clock, systemClock } from '@agent-sessions/core';
import type { KnownBlock } from '@slack/types';
import type { Logger } from '../../../logger.js';
import type { BotMetrics } from '../../ops/metrics.js';
import {
  countedCall,
  type OutboundQueue,
  rateLimitedRetryAfterMs,
  type SlackClient,
  slackErrorCode,
} from '../outbound/index.js';
import { CHANNEL_GONE_ERRORS } from './thread-place.js';

/** Slack will never take an edit of this card: the card or its channel is gone, or closed to edits. */
const CARD_GONE_ERRORS = new Set([
  ...CHANNEL_GONE_ERRORS,
  'message_not_found',
  'cant_update_message',
  'edit_window_closed',
]);

export interface CardMessage {
  channel: string;
  ts: string;
  text: string;
  blocks: KnownBlock[];
}

/**
 * What a card's pending edit shows, most wanted first: a final state (the session ended), then "waiting
 * for you" (a person must act), then progress ("Now:" lines, costs), which gives way to the other two.
 */
export type CardRank = 'final' | 'attention' | 'progress';
const RANK_ORDER: Record<CardRank, number> = { final: 0, attention: 1, progress: 2 };

export interface CardUpdaterOptions {
  /** A card's progress is edited at most once per this interval; changes in between fold into one edit. */
  minIntervalMs?: number;
  /**
   * Without a paced outbound queue: all card edits of this process together stay under this (chat.update
   * is Tier 3, ~50/min). With one, its workspace-wide edit budget paces them.
   */
  maxPerMinute?: number;
  /** Time and waiting (tests move it by hand). */
  clock?: Clock;
}

const MAX_REMEMBERED_CARDS = 2_000;
/** The outbound queue's lane for card edits: they spend the workspace's edit budget, not a channel's. */
export const CARD_EDITS_LANE = 'card edits';

interface Pending {
  build: () => Promise<CardMessage | undefined>;
  due: number;
  rank: CardRank;
  /**
   * Waiting for this card's edit: told whether it is settled (Slack shows it, sent or unchanged since the
   * last, or will never take an edit of this card).
   */
  sent: Array<(shown: boolean) => void>;
}

/**
 * Edits session cards in place, coalesced: each card's pending edits fold into one showing its latest
 * state (built when its turn comes). One edit is in flight at a time, and which card gets the edit budget
 * is decided when the budget has room: final states first, then "waiting for you", then progress, so when
 * the budget is scarce a progress edit never holds up a final one.
 */
export class CardUpdater {
  readonly #minIntervalMs: number;
  readonly #gapMs: number;
  readonly #pending = new Map<string, Pending>();
  readonly #lastSent = new Map<string, number>();
  /** What each card last showed, so an edit that would change nothing is not sent (bounded). */
  readonly #shown = new Map<string, string>();
  /** Counts `forget` calls: an edit in flight across one does not record what it showed. */
  #forgets = 0;
  #nextAllowed = 0;
  readonly #clock: Clock;
  /** Aborts the wait for the next due edit (a new one may be due sooner, or we are stopping). */
  #timer: AbortController | undefined;
  #timerAt = 0;
  #running: Promise<void> | undefined;
  #stopped = false;
  updates = 0;
  /** Progress edits folded into a later edit of their card (not sent on their own). */
  coalesced = 0;

  constructor(
    private readonly slack: SlackClient,
    private readonly logger: Logger,
    private readonly metrics: BotMetrics,
    options: CardUpdaterOptions = {},
    private readonly outbound?: OutboundQueue,
  ) {
    this.#minIntervalMs = options.minIntervalMs ?? 3_000;
    const paced = outbound !== undefined && outbound.pacing === 'on';
    this.#gapMs = paced ? 0 : 60_000 / (options.maxPerMinute ?? 40);
    this.#clock = options.clock ?? systemClock;
  }

  /** Asks for the card to show the latest state; `build` runs when the edit is sent. */
  schedule(
    sessionId: string,
    build: () => Promise<CardMessage | undefined>,
    options: { now?: boolean; rank?: CardRank } = {},
  ): void {
    this.#add(sessionId, build, options.rank ?? 'progress', options.now ?? false);
  }

  /**
   * Another replica follows the session now and edits its card: what this one last showed may no longer be
   * there (the next edit is always sent), and its waiting progress or "waiting for you" edit is dropped.
   * That edit is built when its turn comes from this process's last view of the session, which stops
   * here: sent after the new owner drew the end, it would show the session running again, and the
   * finished session's card is never drawn again. A final edit still goes: the end it shows stays true.
   */
  forget(sessionId: string): void {
    this.#forgets++;
    this.#shown.delete(sessionId);
    const pending = this.#pending.get(sessionId);
    if (!pending || pending.rank === 'final') return;
    this.#pending.delete(sessionId);
    for (const resolve of pending.sent) resolve(false);
  }

  /**
   * A final state: edited ahead of every progress edit, folding in anything pending for the card.
   * Settles once the edit was sent (true: Slack shows it, or will never take it: the card is gone), or
   * failed and was logged, or the updater stopped, or `build` gave nothing (false: worth another try).
   */
  updateNow(sessionId: string, build: () => Promise<CardMessage | undefined>): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      if (!this.#add(sessionId, build, 'final', true, resolve)) resolve(false);
    });
  }

  /** Card edits waiting, by rank (for tests and /metrics). */
  pendingByRank(): Record<CardRank, number> {
    const out: Record<CardRank, number> = { final: 0, attention: 0, progress: 0 };
    for (const p of this.#pending.values()) out[p.rank]++;
    return out;
  }

  /**
   * Stops taking edits and waits for the one being sent. Edits not yet sent are dropped: the process that
   * follows the session next re-renders its card on its first poll.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#timer?.abort();
    this.#timer = undefined;
    // An edit waiting for spare budget stops waiting (it sends nothing once stopped).
    this.outbound?.nudge(CARD_EDITS_LANE);
    await this.#running;
    for (const p of this.#pending.values()) for (const resolve of p.sent) resolve(false);
    this.#pending.clear();
  }

  #add(
    sessionId: string,
    build: () => Promise<CardMessage | undefined>,
    rank: CardRank,
    now: boolean,
    onSent?: (shown: boolean) => void,
  ): boolean {
    if (this.#stopped) return false;
    const t = this.#clock.now();
    const earliest =
      now || rank !== 'progress' ? t : (this.#lastSent.get(sessionId) ?? 0) + this.#minIntervalMs;
    const existing = this.#pending.get(sessionId);
    if (existing) this.coalesced++;
    const pending: Pending = {
      build,
      due: Math.max(t, Math.min(existing?.due ?? Number.POSITIVE_INFINITY, earliest)),
      rank: existing && RANK_ORDER[existing.rank] < RANK_ORDER[rank] ? existing.rank : rank,
      sent: [...(existing?.sent ?? []), ...(onSent ? [onSent] : [])],
    };
    this.#pending.set(sessionId, pending);
    // The edit waiting for its turn may have been waiting for spare budget: this one needn't.
    if (pending.rank !== 'progress') this.outbound?.nudge(CARD_EDITS_LANE);
    // A wait for a later edit gives way to this one.
    const at = pending.rank === 'final' ? pending.due : Math.max(pending.due, this.#nextAllowed);
    if (this.#timer && at < this.#timerAt) {
      this.#timer.abort();
      this.#timer = undefined;
    }
    this.#pump();
    return true;
  }

  /** The card whose edit is most wanted now: best rank, then longest due. */
  #best(now: number): [string, Pending] | undefined {
    let best: [string, Pending] | undefined;
    for (const entry of this.#pending) {
      const [, p] = entry;
      if (p.due > now) continue;
      if (
        !best ||
        RANK_ORDER[p.rank] < RANK_ORDER[best[1].rank] ||
        (p.rank === best[1].rank && p.due < best[1].due)
      )
        best = entry;
    }
    return best;
  }

  #pump(): void {
    if (this.#timer || this.#running || this.#stopped) return;
    // Without a paced queue, a final state goes at once, so the card shows the end without a wait; the rest
    // keep the gap.
    let at = Number.POSITIVE_INFINITY;
    for (const p of this.#pending.values())
      at = Math.min(at, p.rank === 'final' ? p.due : Math.max(p.due, this.#nextAllowed));
    if (at === Number.POSITIVE_INFINITY) return;
    if (at <= this.#clock.now()) {
      this.#running = this.#sendOne().finally(() => {
        this.#running = undefined;
        this.#pump();
      });
      return;
    }
    const timer = new AbortController();
    this.#timer = timer;
    this.#timerAt = at;
    this.#clock.sleep(at - this.#clock.now(), timer.signal).then(
      () => {
        this.#timer = undefined;
        this.#pump();
      },
      () => {}, // stopped, or an edit due sooner came
    );
  }

  /** One edit: the card chosen when the edit budget has room (in the outbound queue's turn). */
  async #sendOne(): Promise<void> {
    this.#nextAllowed = this.#clock.now() + this.#gapMs;
    if (!this.outbound || this.outbound.pacing === 'off') {
      await this.#editBest().catch(() => {});
      return;
    }
    // Progress spends only edits the budget would otherwise lose: what is saved up stays for final states.
    const spare = () =>
      !this.#stopped && (this.#best(this.#clock.now())?.[1].rank ?? 'progress') === 'progress';
    await this.outbound
      .run({
        channel: CARD_EDITS_LANE,
        priority: 'edit',
        method: 'chat.update',
        spare,
        run: () => this.#editBest(),
      })
      .catch(() => {});
  }

  async #editBest(): Promise<void> {
    if (this.#stopped) return;
    const best = this.#best(this.#clock.now());
    if (!best) return;
    const [sessionId, pending] = best;
    this.#pending.delete(sessionId);
    this.#lastSent.set(sessionId, this.#clock.now());
    const forgets = this.#forgets;
    /** Settled: Slack shows the card, or will never take an edit of it. */
    let shown = false;
    try {
      const card = await pending.build();
      if (!card) return;
      const content = JSON.stringify([card.channel, card.ts, card.text, card.blocks]);
      shown = this.#shown.get(sessionId) === content;
      if (shown) return;
      await countedCall(this.metrics, 'chat.update', () =>
        this.slack.chat.update({ channel: card.channel, ts: card.ts, text: card.text, blocks: card.blocks }),
      );
      this.#shown.delete(sessionId);
      // Taken over meanwhile: the new owner may have edited the card since, so what it shows is unknown.
      if (forgets === this.#forgets) this.#shown.set(sessionId, content);
      const oldest = this.#shown.keys().next();
      if (this.#shown.size > MAX_REMEMBERED_CARDS && !oldest.done) this.#shown.delete(oldest.value);
      shown = true;
      this.updates++;
    } catch (error) {
      if (rateLimitedRetryAfterMs(error) !== undefined && !this.#stopped) {
        // The queue waits the Retry-After and gives the turn again; the card waits with what came since.
        const since = this.#pending.get(sessionId);
        this.#pending.set(sessionId, {
          build: since?.build ?? pending.build,
          due: pending.due,
          rank: since && RANK_ORDER[since.rank] < RANK_ORDER[pending.rank] ? since.rank : pending.rank,
          sent: [...pending.sent, ...(since?.sent ?? [])],
        });
        pending.sent = [];
        throw error;
      }
      const code = slackErrorCode(error);
      shown = code !== undefined && CARD_GONE_ERRORS.has(code);
      this.metrics.errors.inc({ where: 'card_update' });
      this.logger.warn({ err: error, sessionId }, 'could not update a session card');
    } finally {
      for (const resolve of pending.sent) resolve(shown);
    }
  }
}
