import type { Logger } from '../../logger.js';
import type { WorkspaceIds } from '../../workspace.js';

/**
 * A list of workspaces the operator names (SLACK_ALLOWED_TEAMS, AGENT_API_KEY_TEAMS): team ids (T…) and
 * Enterprise Grid organisation ids (E…), or `*` for every workspace, written out so that "any" is never
 * what an empty or forgotten setting means.
 */
export type TeamList = { any: true } | { any: false; ids: ReadonlySet<string> };

/**
 * Whether a workspace is on the list: by its team id, or by its organisation's id (which names every
 * workspace of an Enterprise Grid organisation). An org-wide install has no team of its own: only its
 * organisation's id can list it.
 */
export function listsWorkspace(list: TeamList, ids: WorkspaceIds | undefined): boolean {
  if (list.any) return true;
  if (!ids) return false;
  return (
    (ids.teamId !== undefined && list.ids.has(ids.teamId)) ||
    (ids.enterpriseId !== undefined && list.ids.has(ids.enterpriseId))
  );
}

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
