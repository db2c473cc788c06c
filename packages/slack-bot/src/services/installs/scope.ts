import type { App } from '@slack/bolt';
import { boundedCache } from '../../bounded-cache.js';
import type { Logger } from '../../logger.js';
import type { SessionRepository } from '../../store/index.js';
import { inWorkspace, type Workspace, workspaceOf } from '../../workspace.js';
import type { Admission } from './admission.js';

/** What a workspace the operator no longer admits may still send: its removal, so its tokens are deleted. */
const REMOVALS = new Set(['app_uninstalled', 'tokens_revoked']);

/**
 * Every request from Slack runs as the work of the workspace it came from (Bolt's context, read from
 * the signed payload): its Slack calls go with that workspace's token and, in OAuth mode, the store shows
 * it only its own sessions. A request naming no workspace is dropped in OAuth mode, and so is one from a
 * workspace SLACK_ALLOWED_TEAMS doesn't admit (acknowledged, so Slack doesn't retry, and nothing done).
 */
export function scopeRequests(app: App, admission: Admission | undefined, logger: Logger): void {
  const isolated = admission !== undefined;
  app.use(async (args) => {
    const { context, next } = args;
    const workspace = workspaceOf(
      {
        teamId: context.teamId,
        enterpriseId: context.enterpriseId,
        isEnterpriseInstall: context.isEnterpriseInstall,
      },
      isolated,
    );
    if (!workspace && isolated) {
      logger.warn('a request from Slack named no workspace: ignored');
      return;
    }
    const removal = 'event' in args && REMOVALS.has(args.event.type);
    if (admission && !removal && !admission.check(workspace, 'requests')) {
      if ('ack' in args && typeof args.ack === 'function') await args.ack();
      return;
    }
    await inWorkspace(workspace, next);
  });
}

/** Sessions whose workspace is remembered (the least recently asked forgotten first; asked of the store again). */
const MAX_KNOWN = 20_000;

/**
 * Work for one session (its follower's events, its reminders) runs as its workspace's. A session
 * recorded with no workspace (single-workspace mode, or stored before workspaces were recorded) runs with
 * the bot's one token and budgets.
 */
export class SessionWorkspaces {
  readonly #known = boundedCache<string, Workspace>({ max: MAX_KNOWN });

  constructor(
    private readonly sessions: Pick<SessionRepository, 'workspaceOf'>,
    private readonly isolated: boolean,
  ) {}

  async of(sessionId: string): Promise<Workspace | undefined> {
    const known = this.#known.get(sessionId);
    if (known !== undefined) return known;
    const found = await this.sessions.workspaceOf(sessionId);
    const workspace = found
      ? { ...found, isEnterpriseInstall: found.key === found.enterpriseId, isolated: this.isolated }
      : undefined;
    // A session's workspace never changes; one it doesn't know yet may be recorded in a moment.
    if (workspace) this.#known.set(sessionId, workspace);
    return workspace;
  }

  /** Runs `fn` as the session's workspace's work. */
  async run<T>(sessionId: string, fn: () => Promise<T>): Promise<T> {
    return inWorkspace(await this.of(sessionId), fn);
  }
}
