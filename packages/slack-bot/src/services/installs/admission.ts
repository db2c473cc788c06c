import type { Logger } from '../../logger.js';
import { listsWorkspace, type TeamList } from '../../team-list.js';
import type { WorkspaceIds } from '../../workspace.js';

/**
 * The workspaces the operator admits (SLACK_ALLOWED_TEAMS): an install from any other is refused, and a
 * workspace installed earlier and since dropped from the list is served nothing. What is turned away is
 * logged once per workspace and kind (an install, requests, its sessions), so a busy dropped workspace can't flood the log.
 */
export class Admission {
  readonly #told = new Set<string>();
  readonly #maxTold = 10_000;

  constructor(
    private readonly list: TeamList,
    private readonly logger: Logger,
  ) {}

  admits(ids: WorkspaceIds | undefined): boolean {
    return listsWorkspace(this.list, ids);
  }

  /** As `admits`; a refusal is logged the first time for each workspace and `what` (what was turned away). */
  check(ids: WorkspaceIds | undefined, what: string): boolean {
    if (this.admits(ids)) return true;
    const key = `${what}|${ids?.enterpriseId ?? '-'}/${ids?.teamId ?? '-'}`;
    if (!this.#told.has(key) && this.#told.size < this.#maxTold) {
      this.#told.add(key);
      this.logger.warn(
        { teamId: ids?.teamId, enterpriseId: ids?.enterpriseId, what },
        'a workspace not in SLACK_ALLOWED_TEAMS: served nothing (said once per workspace and kind)',
      );
    }
    return false;
  }
}
