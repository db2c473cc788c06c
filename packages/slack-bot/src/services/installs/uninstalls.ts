import type { Logger } from '../../logger.js';
import type { InstallationRepository, McpTokenRepository, SessionRepository } from '../../store/index.js';
import { type WorkspaceIds, workspaceKey } from '../../workspace.js';

export type UninstallReason = 'app_uninstalled' | 'tokens_revoked';

/**
 * A workspace that uninstalled the app (or revoked its bot token): its tokens are deleted, its people's
 * MCP tokens revoked (an agent host acts there no more) and its sessions are no longer followed, by any replica. Nothing is posted about it — the app can no longer
 * post there — and the sessions stay in the service, untouched; the log says what happened.
 */
export class Uninstalls {
  constructor(
    private readonly deps: {
      installations: Pick<InstallationRepository, 'remove'>;
      sessions: Pick<SessionRepository, 'detach'>;
      mcpTokens: Pick<McpTokenRepository, 'revokeWorkspace'>;
      /** Renews this replica's leases now: detached sessions are let go (the others do at their next turn). */
      releaseLeases: () => Promise<void>;
      logger: Logger;
    },
  ) {}

  async uninstalled(ids: WorkspaceIds, reason: UninstallReason): Promise<void> {
    const key = workspaceKey(ids);
    if (key === undefined) {
      this.deps.logger.warn({ reason }, 'an uninstall named no workspace: ignored');
      return;
    }
    const removed = await this.deps.installations.remove(key);
    const mcpTokensRevoked = await this.deps.mcpTokens.revokeWorkspace(key);
    const detached = await this.deps.sessions.detach(key);
    await this.deps.releaseLeases();
    this.deps.logger.info(
      {
        ...{ workspace: key, reason, tokensDeleted: removed, mcpTokensRevoked },
        sessionsNoLongerFollowed: detached.length,
      },
      'the app was removed from a workspace: its tokens are deleted and its sessions no longer followed',
    );
  }

  /** tokens_revoked: only a revoked bot token stops the app (it holds no user tokens). */
  async revoked(ids: WorkspaceIds, tokens: { bot?: string[] | undefined } | undefined): Promise<void> {
    if ((tokens?.bot?.length ?? 0) === 0) return;
    await this.uninstalled(ids, 'tokens_revoked');
  }
}
