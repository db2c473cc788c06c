import type { HomeView } from '@slack/types';
import type { LRUCache } from 'lru-cache';
import { boundedCache } from '../../bounded-cache.js';
import type { Logger } from '../../logger.js';
import { cacheKey } from '../../workspace.js';
import { slackErrorCode } from '../slack-out/outbound/index.js';

/**
 * Slack's `views.publish`: given a `hash`, it answers `hash_conflict` unless the person's Home is still the
 * view that hash names; its answer's `view` carries the new view's hash.
 */
export type PublishHome = (args: { user_id: string; view: HomeView; hash?: string }) => Promise<{
  view?: unknown;
}>;

export interface HomeViewsDeps {
  publish: PublishHome;
  logger: Logger;
  /** Publishes with a hash tried per call before the last resort, one without (default 3). */
  maxConflicts?: number;
  /** People whose Home's hash this replica remembers (the least recently published forgotten first). */
  maxPeople?: number;
}

export interface PublishOptions {
  /** The Home's hash as Slack last said it: app_home_opened's `view`. */
  hash?: string;
  /** Publish nothing when the draw is what this replica last published and nothing is known to have replaced it. */
  unlessShown?: boolean;
}

/** What this replica last knew of a person's Home: Slack's hash for it, and what it published. */
interface Known {
  hash: string;
  shown: string;
}

/** A person's Home as a draw makes it from the store, read when it is called. */
type Draw = () => Promise<HomeView | undefined>;

const CONFLICT = Symbol('hash_conflict');

/** The hash of a view as Slack sends it (a publish's answer, app_home_opened's `view`), if it has one. */
export function viewHashOf(view: unknown): string | undefined {
  if (typeof view !== 'object' || view === null || !('hash' in view)) return undefined;
  return typeof view.hash === 'string' && view.hash !== '' ? view.hash : undefined;
}

/**
 * Publishes people's Home tabs so that a draw which read the store before a change (a key removed, a token
 * revoked, a question answered) never replaces one that read it after, in this process or another: the
 * Home's hash is taken before the draw reads anything and the view is published with it, so Slack refuses
 * it (`hash_conflict`) if any Home was published since. Refused, the Home is drawn again from what is
 * stored now, a few times, then as a last resort published without a hash from a fresh read. The hashes
 * kept are the cheap ones (what views.publish answers, what app_home_opened carries), per workspace and
 * person; a person's conflicts cost only their own publishes: there is no lock across people.
 */
export class HomeViews {
  readonly #known: LRUCache<string, Known>;
  /**
   * Per person, the publish without a hash under way in this process: the next draw waits for it and its
   * hash, rather than racing it with no hash either (a first Home, or one whose hash was refused).
   */
  readonly #unhashed = new Map<string, Promise<void>>();
  readonly #maxConflicts: number;

  constructor(private readonly deps: HomeViewsDeps) {
    this.#known = boundedCache({ max: deps.maxPeople ?? 5_000 });
    this.#maxConflicts = deps.maxConflicts ?? 3;
  }

  /** Draws `userId`'s Home and publishes it; the view published, or undefined when none was. */
  async publish(userId: string, draw: Draw, options: PublishOptions = {}): Promise<HomeView | undefined> {
    const key = cacheKey(userId);
    const tried = new Set<string>();
    let offered = options.hash;
    for (let attempt = 0; attempt < this.#maxConflicts; attempt++) {
      await this.#settled(key);
      // Taken before the draw reads the store: whatever it reads is at least as new as this Home.
      const hash = [offered, this.#known.get(key)?.hash].find((h) => h !== undefined && !tried.has(h));
      offered = undefined;
      if (hash === undefined) break;
      tried.add(hash);
      const done = await this.#publishHashed(key, userId, draw, hash, options.unlessShown === true);
      if (done !== CONFLICT) return done;
    }
    return this.#publishUnhashed(key, userId, draw);
  }

  /** Waits (a bounded number of times) for this person's publish without a hash under way, if any. */
  async #settled(key: string): Promise<void> {
    for (let i = 0; i < this.#maxConflicts; i++) {
      const pending = this.#unhashed.get(key);
      if (!pending) return;
      await pending;
    }
  }

  async #publishHashed(
    key: string,
    userId: string,
    draw: Draw,
    hash: string,
    unlessShown: boolean,
  ): Promise<HomeView | undefined | typeof CONFLICT> {
    const view = await draw();
    if (!view) return undefined;
    const shown = JSON.stringify(view);
    const known = this.#known.get(key);
    if (unlessShown && known?.hash === hash && known.shown === shown) return undefined;
    try {
      this.#remember(key, await this.deps.publish({ user_id: userId, view, hash }), shown);
      return view;
    } catch (error) {
      if (slackErrorCode(error) !== 'hash_conflict') throw error;
      // Another Home went out since `hash` was taken: this draw may be older than it, so it is drawn again.
      if (this.#known.get(key)?.hash === hash) this.#known.delete(key);
      this.deps.logger.debug({ userId }, 'a Home tab changed while it was drawn: drawing it again');
      return CONFLICT;
    }
  }

  /** The last resort: drawn from the store now and published as is, one at a time per person here. */
  #publishUnhashed(key: string, userId: string, draw: Draw): Promise<HomeView | undefined> {
    const run = (async () => {
      const view = await draw();
      if (!view) return undefined;
      this.#remember(key, await this.deps.publish({ user_id: userId, view }), JSON.stringify(view));
      return view;
    })();
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.#unhashed.set(key, settled);
    void settled.then(() => {
      if (this.#unhashed.get(key) === settled) this.#unhashed.delete(key);
    });
    return run;
  }

  #remember(key: string, answer: { view?: unknown }, shown: string): void {
    const hash = viewHashOf(answer.view);
    if (hash) this.#known.set(key, { hash, shown });
    else this.#known.delete(key);
  }
}
