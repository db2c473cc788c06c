/** The lists of workspaces the operator names: SLACK_ALLOWED_TEAMS and AGENT_API_KEY_TEAMS. */
import type { TeamList } from '../services/installs/admission.js';
import type { Problem } from './fields.js';

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
 * What is wrong with a team list. Under OAuth installs each entry is checked; with one bot token it would
 * do nothing, so it is refused. Unset Slack (npm start's local sandbox) may still be OAuth once the sandbox
 * is up: nothing to say.
 */
export function teamListProblems(
  name: string,
  raw: string | undefined,
  mode: { oauth: boolean; botToken: boolean },
): Problem[] {
  if (!mode.oauth)
    return raw !== undefined && mode.botToken
      ? [
          [
            name,
            `${name} applies to OAuth installs only (SLACK_CLIENT_ID…): with SLACK_BOT_TOKEN the bot serves that token's workspace alone`,
          ],
        ]
      : [];
  const parsed = parseTeamList(name, raw);
  return parsed.ok ? [] : parsed.problems.map((message): Problem => [name, message]);
}

/** A team list once teamListProblems has passed (admits nobody when unset). */
export function teamListOf(name: string, raw: string | undefined): TeamList {
  const parsed = parseTeamList(name, raw);
  return parsed.ok ? parsed.list : { any: false, ids: new Set() };
}
