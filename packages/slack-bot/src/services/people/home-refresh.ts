import type { HomeView } from '@slack/types';
import type { LRUCache } from 'lru-cache';
import { boundedCache } from '../../bounded-cache.js';
import type { Logger } from '../../logger.js';
import { cacheKey, currentWorkspace, inWorkspace, type Workspace, workspaceScope } from '../../workspace.js';
import type { HomeViews } from './home-views.js';

/** A person whose Home tab the bot has drawn, and in which workspace. */
interface Viewer {
  userId: string;
  workspace: Workspace | undefined;
}

export interface HomeRefreshDeps {
  /** The person's Home as it should look now, read from the store when called. */
  build(userId: string): Promise<HomeView>;
  /** Publishes with Slack's hash (an older draw never replaces a newer one); knows what it last published. */
  views: Pick<HomeViews, 'publish'>;
  logger: Logger;
  /** Changes within this window go out as one publish per person. */
  coalesceMs?: number;
  /** People remembered per replica (the least recently seen forgotten first; their next visit draws it). */
  maxViewers?: number;
}

/**
 * Keeps the Home tabs people have opened true while sessions change: every start, answer, question and
 * end marks its workspace's Homes as due; after a short window each due Home is drawn again and published
 * only when it differs from what this replica last published to the person (HomeViews knows). One publish
 * per person per window keeps the bot well inside `views.publish`'s limit (Tier 4, and Slack's own
 * per-person pacing of Home updates). A Home never opened is drawn when the person first opens it
 * (`app_home_opened`), so it is never published ahead of that.
 */
export class HomeRefresher {
  /** Ordered by when each person last opened their Home: a refresh `peek`s, as it is no visit. */
  readonly #viewers: LRUCache<string, Viewer>;
  readonly #due = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(private readonly deps: HomeRefreshDeps) {
    this.#viewers = boundedCache({ max: deps.maxViewers ?? 5_000 });
  }

  /** A person opened their Home and was shown it. */
  opened(userId: string): void {
    this.#viewers.set(cacheKey(userId), { userId, workspace: currentWorkspace() });
  }

  /** Something changed in a session of the current workspace: its viewers' Homes are due. */
  changed(): void {
    const here = scopeOf(currentWorkspace());
    for (const [key, viewer] of this.#viewers) if (scopeOf(viewer.workspace) === here) this.#due.add(key);
    if (this.#stopped || this.#due.size === 0 || this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#flushing = this.#flushing.then(() => this.flush());
    }, this.deps.coalesceMs ?? 1_000);
    this.#timer.unref();
  }

  /** Draws every due Home again and publishes those that changed. */
  async flush(): Promise<void> {
    const due = [...this.#due];
    this.#due.clear();
    for (const key of due) {
      if (this.#stopped) return;
      const viewer = this.#viewers.peek(key);
      if (!viewer) continue;
      await inWorkspace(viewer.workspace, () => this.#refresh(viewer)).catch((error: unknown) =>
        this.deps.logger.warn({ err: error, userId: viewer.userId }, 'could not refresh a Home tab'),
      );
    }
  }

  async #refresh(viewer: Viewer): Promise<void> {
    await this.deps.views.publish(viewer.userId, () => this.deps.build(viewer.userId), { unlessShown: true });
  }

  /**
   * No refresh starts after this; the one on its way is awaited, so none reads the store or calls Slack
   * once the replica has closed them.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#flushing;
  }
}

const scopeOf = (workspace: Workspace | undefined) => (workspace ? workspaceScope(workspace) : '');
