import type { HomeView } from '@slack/types';
import type { Logger } from '../../logger.js';
import { cacheKey, currentWorkspace, inWorkspace, type Workspace, workspaceScope } from '../../workspace.js';

/** A person whose Home tab the bot has drawn: what it last showed them, and in which workspace. */
interface Viewer {
  userId: string;
  workspace: Workspace | undefined;
  shown: string;
}

export interface HomeRefreshDeps {
  /** The person's Home as it should look now. */
  build(userId: string): Promise<HomeView>;
  publish(userId: string, view: HomeView): Promise<unknown>;
  logger: Logger;
  /** Changes within this window go out as one publish per person. */
  coalesceMs?: number;
  /** People remembered per replica (the least recently seen forgotten first; their next visit draws it). */
  maxViewers?: number;
}

/**
 * Keeps the Home tabs people have opened true while sessions change: every start, answer, question and
 * end marks its workspace's Homes as due; after a short window each due Home is drawn again and published
 * only when it differs from what the person last saw. One publish per person per window keeps the bot well
 * inside `views.publish`'s limit (Tier 4, and Slack's own per-person pacing of Home updates). A Home
 * never opened is drawn when the person first opens it (`app_home_opened`), so it is never published
 * ahead of that.
 */
export class HomeRefresher {
  readonly #viewers = new Map<string, Viewer>();
  readonly #due = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();

  constructor(private readonly deps: HomeRefreshDeps) {}

  /** A person opened their Home and was shown `view`. */
  opened(userId: string, view: HomeView): void {
    const key = cacheKey(userId);
    this.#viewers.delete(key);
    this.#viewers.set(key, { userId, workspace: currentWorkspace(), shown: JSON.stringify(view) });
    const max = this.deps.maxViewers ?? 5_000;
    if (this.#viewers.size > max) this.#viewers.delete(this.#viewers.keys().next().value ?? '');
  }

  /** Something changed in a session of the current workspace: its viewers' Homes are due. */
  changed(): void {
    const here = scopeOf(currentWorkspace());
    for (const [key, viewer] of this.#viewers) if (scopeOf(viewer.workspace) === here) this.#due.add(key);
    if (this.#due.size === 0 || this.#timer) return;
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
      const viewer = this.#viewers.get(key);
      if (!viewer) continue;
      await inWorkspace(viewer.workspace, () => this.#refresh(viewer)).catch((error: unknown) =>
        this.deps.logger.warn({ err: error, userId: viewer.userId }, 'could not refresh a Home tab'),
      );
    }
  }

  async #refresh(viewer: Viewer): Promise<void> {
    const view = await this.deps.build(viewer.userId);
    const shown = JSON.stringify(view);
    if (shown === viewer.shown) return;
    await this.deps.publish(viewer.userId, view);
    viewer.shown = shown;
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

const scopeOf = (workspace: Workspace | undefined) => (workspace ? workspaceScope(workspace) : '');
