import { type Clock, systemClock } from '@agent-sessions/core';
import type { KnownBlock } from '@slack/types';
import type { Logger } from '../../logger.js';
import type { BotMetrics } from '../ops/metrics.js';
import type { OutboundQueue } from './outbound.js';
import type { SlackClient } from './slack.js';

export interface CardMessage {
  channel: string;
  ts: string;
  text: string;
  blocks: KnownBlock[];
}

export interface CardUpdaterOptions {
  /** A card is edited at most once per this interval; changes in between are folded into one edit. */
  minIntervalMs?: number;
  /** All card edits of this process together stay under this (chat.update is Tier 3, ~50/min). */
  maxPerMinute?: number;
  /** Time and waiting (tests move it by hand). */
  clock?: Clock;
}

const MAX_REMEMBERED_CARDS = 2_000;

interface Pending {
  build: () => Promise<CardMessage | undefined>;
  due: number;
}

/**
 * Edits session cards in place, coalesced: each card at most once per `minIntervalMs` showing its latest
 * state, and all cards together under `maxPerMinute`, so Slack's rate limits are never reached.
 */
export class CardUpdater {
  readonly #minIntervalMs: number;
  readonly #gapMs: number;
  readonly #pending = new Map<string, Pending>();
  readonly #lastSent = new Map<string, number>();
  /** What each card last showed, so an edit that would change nothing is not sent (bounded). */
  readonly #shown = new Map<string, string>();
  #nextAllowed = 0;
  readonly #clock: Clock;
  /** Aborts the wait for the next due edit (a new one may be due sooner, or we are stopping). */
  #timer: AbortController | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;
  updates = 0;

  constructor(
    private readonly slack: SlackClient,
    private readonly logger: Logger,
    private readonly metrics: BotMetrics,
    options: CardUpdaterOptions = {},
    /** Card edits wait behind prompts and answers in their channel's queue. */
    private readonly outbound?: OutboundQueue,
  ) {
    this.#minIntervalMs = options.minIntervalMs ?? 3_000;
    this.#gapMs = 60_000 / (options.maxPerMinute ?? 40);
    this.#clock = options.clock ?? systemClock;
  }

  /** Asks for the card to show the latest state; `build` runs when the edit is sent. */
  schedule(
    sessionId: string,
    build: () => Promise<CardMessage | undefined>,
    options: { now?: boolean } = {},
  ): void {
    if (this.#stopped) return;
    const earliest = options.now ? 0 : (this.#lastSent.get(sessionId) ?? 0) + this.#minIntervalMs;
    const existing = this.#pending.get(sessionId);
    const due = existing
      ? Math.min(existing.due, Math.max(this.#clock.now(), earliest))
      : Math.max(this.#clock.now(), earliest);
    this.#pending.set(sessionId, { build, due });
    this.#pump();
  }

  /** Forgets what the card last showed (someone else may edit it now): the next edit is always sent. */
  forget(sessionId: string): void {
    this.#shown.delete(sessionId);
  }

  /** Edits the card now (a final state), folding in anything pending for it. */
  async updateNow(sessionId: string, build: () => Promise<CardMessage | undefined>): Promise<void> {
    this.#pending.delete(sessionId);
    this.#lastSent.set(sessionId, this.#clock.now());
    await this.#send(sessionId, build);
  }

  /**
   * Stops taking edits and waits for the one being sent. Edits not yet sent are dropped: the process that
   * follows the session next re-renders its card on its first poll.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#timer?.abort();
    this.#timer = undefined;
    await this.#running;
  }

  #pump(): void {
    if (this.#timer || this.#running || this.#stopped) return;
    let next: [string, Pending] | undefined;
    for (const entry of this.#pending) if (!next || entry[1].due < next[1].due) next = entry;
    if (!next) return;
    const at = Math.max(next[1].due, this.#nextAllowed);
    const timer = new AbortController();
    this.#timer = timer;
    this.#clock.sleep(Math.max(0, at - this.#clock.now()), timer.signal).then(
      () => {
        this.#timer = undefined;
        this.#running = this.#sendDue().finally(() => {
          this.#running = undefined;
          this.#pump();
        });
      },
      () => {}, // stopped
    );
  }

  async #sendDue(): Promise<void> {
    const now = this.#clock.now();
    let next: [string, Pending] | undefined;
    for (const entry of this.#pending)
      if (entry[1].due <= now && (!next || entry[1].due < next[1].due)) next = entry;
    if (!next) return;
    const [sessionId, pending] = next;
    this.#pending.delete(sessionId);
    this.#lastSent.set(sessionId, now);
    this.#nextAllowed = now + this.#gapMs;
    await this.#send(sessionId, pending.build);
  }

  async #send(sessionId: string, build: () => Promise<CardMessage | undefined>): Promise<void> {
    try {
      const card = await build();
      if (!card) return;
      const content = JSON.stringify([card.channel, card.ts, card.text, card.blocks]);
      if (this.#shown.get(sessionId) === content) return;
      const edit = () =>
        this.slack.chat.update({ channel: card.channel, ts: card.ts, text: card.text, blocks: card.blocks });
      await (this.outbound
        ? this.outbound.run({ channel: card.channel, priority: 'edit', method: 'update', run: edit })
        : edit());
      this.#shown.delete(sessionId);
      this.#shown.set(sessionId, content);
      const oldest = this.#shown.keys().next();
      if (this.#shown.size > MAX_REMEMBERED_CARDS && !oldest.done) this.#shown.delete(oldest.value);
      this.updates++;
      this.metrics.slackCalls.inc({ method: 'chat.update', outcome: 'ok' });
    } catch (error) {
      this.metrics.slackCalls.inc({ method: 'chat.update', outcome: 'error' });
      this.metrics.errors.inc({ where: 'card_update' });
      this.logger.warn({ err: error, sessionId }, 'could not update a session card');
    }
  }
}
