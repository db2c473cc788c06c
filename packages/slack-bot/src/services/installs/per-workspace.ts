import type { Logger } from '../../logger.js';
import { bindWorkspace, currentWorkspace, type Workspace } from '../../workspace.js';
import type { BotMetrics } from '../ops/metrics.js';
import {
  type OutboundCall,
  type OutboundOptions,
  type OutboundPriority,
  OutboundQueue,
  type SharedBudgets,
  type SlackMethod,
} from '../slack-out/outbound/index.js';
import {
  type CardMessage,
  type CardRank,
  CardUpdater,
  type CardUpdaterOptions,
} from '../slack-out/thread/index.js';
import type { WorkspaceClient } from './client.js';

/**
 * Slack limits an app per workspace, so each workspace gets its own paced queue (its channels' posts, its
 * edit and view budgets), and with replicas its own rows in the shared budgets (keys prefixed with the
 * workspace): a busy workspace never spends another's. The queue a call joins is its caller's workspace's,
 * and the call runs as that workspace's work whenever its turn comes. Calls made for no workspace use
 * this queue itself (single-workspace behaviour).
 */
export class WorkspaceOutbound extends OutboundQueue {
  readonly #queues = new Map<string, OutboundQueue>();

  constructor(
    private readonly log: Logger,
    private readonly meter: BotMetrics,
    private readonly options: OutboundOptions = {},
  ) {
    super(log, meter, options);
  }

  /** The queue of a workspace (made on first use). */
  queueOf(workspace: Workspace): OutboundQueue {
    let queue = this.#queues.get(workspace.key);
    if (!queue) {
      const { shared, ...rest } = this.options;
      queue = new OutboundQueue(this.log.child({ workspace: workspace.key }), this.meter, {
        ...rest,
        ...(shared ? { shared: prefixed(shared, workspace.key) } : {}),
      });
      this.#queues.set(workspace.key, queue);
    }
    return queue;
  }

  override run<T>(call: OutboundCall<T>): Promise<T> {
    const workspace = currentWorkspace();
    if (!workspace) return super.run(call);
    return this.queueOf(workspace).run({ ...call, run: bindWorkspace(call.run) });
  }

  override promote(channel: string, tag: string, priority: OutboundPriority): number {
    const workspace = currentWorkspace();
    if (workspace) return this.queueOf(workspace).promote(channel, tag, priority);
    return super.promote(channel, tag, priority);
  }

  override withdraw(tag: string, reason: Error): number {
    let taken = super.withdraw(tag, reason);
    for (const queue of this.#queues.values()) taken += queue.withdraw(tag, reason);
    return taken;
  }

  override cancelTurns(channel: string, tag: string, reason: Error): number {
    let taken = super.cancelTurns(channel, tag, reason);
    for (const queue of this.#queues.values()) taken += queue.cancelTurns(channel, tag, reason);
    return taken;
  }

  override turnOver(channel: string, tag: string): void {
    super.turnOver(channel, tag);
    for (const queue of this.#queues.values()) queue.turnOver(channel, tag);
  }

  override takeNow(channel: string, method: SlackMethod): boolean {
    const workspace = currentWorkspace();
    if (workspace) return this.queueOf(workspace).takeNow(channel, method);
    return super.takeNow(channel, method);
  }

  override runNow<T>(channel: string, method: SlackMethod, run: () => Promise<T>): Promise<T> {
    const workspace = currentWorkspace();
    if (workspace) return this.queueOf(workspace).runNow(channel, method, run);
    return super.runNow(channel, method, run);
  }

  override nudge(channel: string): void {
    super.nudge(channel);
    for (const queue of this.#queues.values()) queue.nudge(channel);
  }

  override waiting(channel: string, priority?: OutboundPriority): number {
    const workspace = currentWorkspace();
    if (workspace) return this.queueOf(workspace).waiting(channel, priority);
    return super.waiting(channel, priority);
  }

  /** Every workspace's lanes (named `workspace/channel`), for /metrics' totals. */
  override depths(): Map<string, number> {
    const all = new Map(super.depths());
    for (const [key, queue] of this.#queues)
      for (const [lane, depth] of queue.depths()) all.set(`${key}/${lane}`, depth);
    return all;
  }
}

function prefixed(shared: SharedBudgets, workspace: string): SharedBudgets {
  return {
    take: (key, rate, keep, flight) => shared.take(`${workspace}:${key}`, rate, keep, flight),
    pause: (key, ms) => shared.pause(`${workspace}:${key}`, ms),
    landed: (key, rate, flight) => shared.landed(`${workspace}:${key}`, rate, flight),
  };
}

/**
 * Card edits per workspace: each workspace's cards share its own edit budget (chatting in one workspace
 * never delays another's final states), edited with that workspace's token.
 */
export class WorkspaceCards extends CardUpdater {
  readonly #cards = new Map<string, CardUpdater>();

  constructor(
    private readonly client: WorkspaceClient,
    private readonly log: Logger,
    private readonly meter: BotMetrics,
    private readonly cardOptions: CardUpdaterOptions | undefined,
    private readonly queues: WorkspaceOutbound,
  ) {
    super(client, log, meter, cardOptions, queues);
  }

  #of(): CardUpdater | undefined {
    const workspace = currentWorkspace();
    if (!workspace) return undefined;
    let cards = this.#cards.get(workspace.key);
    if (!cards) {
      cards = new CardUpdater(
        this.client.forWorkspace(workspace),
        this.log,
        this.meter,
        this.cardOptions,
        this.queues.queueOf(workspace),
      );
      this.#cards.set(workspace.key, cards);
    }
    return cards;
  }

  override schedule(
    sessionId: string,
    build: () => Promise<CardMessage | undefined>,
    options: { now?: boolean; rank?: CardRank } = {},
  ): void {
    const cards = this.#of();
    if (cards) cards.schedule(sessionId, bindWorkspace(build), options);
    else super.schedule(sessionId, build, options);
  }

  override updateNow(sessionId: string, build: () => Promise<CardMessage | undefined>): Promise<boolean> {
    const cards = this.#of();
    return cards ? cards.updateNow(sessionId, bindWorkspace(build)) : super.updateNow(sessionId, build);
  }

  override forget(sessionId: string): void {
    super.forget(sessionId);
    for (const cards of this.#cards.values()) cards.forget(sessionId);
  }

  override pendingByRank(): Record<CardRank, number> {
    const out = super.pendingByRank();
    for (const cards of this.#cards.values()) {
      const more = cards.pendingByRank();
      for (const rank of Object.keys(out) as CardRank[]) out[rank] += more[rank];
    }
    return out;
  }

  override async stop(): Promise<void> {
    await Promise.all([super.stop(), ...[...this.#cards.values()].map((cards) => cards.stop())]);
  }
}
