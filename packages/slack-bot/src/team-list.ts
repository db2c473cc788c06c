import type { WorkspaceIds } from './workspace.js';

/**
 * A list of workspaces the operator names (SLACK_ALLOWED_TEAMS, AGENT_API_KEY_TEAMS): team ids (T…) and
 * Enterprise Grid organisation ids (E…), or `*` for every workspace, written out so that "any" is never
 * what an empty or forgotten setting means.
 */
export type TeamList = { any: true } | { any: false; ids: ReadonlySet<string> };

const ID = /^[TE][A-Z0-9]{2,}$/;

/** A team list as written, or the problems with it, each naming the variable, the entry and the rule. */
export function parseTeamList(
  name: string,
  raw: string | undefined,
): { ok: true; list: TeamList } | { ok: false; problems: string[] } {
  const entries = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.includes('*')) {
    return entries.length === 1
      ? { ok: true, list: { any: true } }
      : { ok: false, problems: [`${name}: * admits every workspace and stands alone; got "${raw}"`] };
  }
  const problems = entries
    .filter((entry) => !ID.test(entry))
    .map(
      (entry) =>
        `${name} takes team ids (T…) and organisation ids (E…), comma-separated, or * for every workspace; got "${entry.slice(0, 60)}"`,
    );
  return problems.length > 0
    ? { ok: false, problems }
    : { ok: true, list: { any: false, ids: new Set(entries) } };
}

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
