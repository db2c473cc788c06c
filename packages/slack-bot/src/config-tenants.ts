/**
 * Which workspaces the bot serves and lends the operator's key to, when OAuth installs let any workspace
 * reach it: `SLACK_ALLOWED_TEAMS` (required under OAuth) and `AGENT_API_KEY_TEAMS`. Under OAuth the
 * place-naming allowlists (`AGENT_ALLOWED_CHANNELS`, `AGENT_ESCALATE_TO`) must say which workspace each
 * entry is for. Read by config.ts, each problem named by its variable.
 */
import { z } from 'zod';
import { parseEntry } from './services/people/workspace-entries.js';
import { parseTeamList, type TeamList } from './team-list.js';

const optionalText = z.preprocess(
  (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
  z.string().optional(),
);

/** The zod fields config.ts adds to its schema (checked together in tenantProblems). */
export const tenantsEnv = {
  SLACK_ALLOWED_TEAMS: optionalText,
  AGENT_API_KEY_TEAMS: optionalText,
};

interface TenantsEnv {
  SLACK_BOT_TOKEN?: string | undefined;
  SLACK_ALLOWED_TEAMS?: string | undefined;
  AGENT_API_KEY_TEAMS?: string | undefined;
  AGENT_ALLOWED_CHANNELS: string[];
  AGENT_ESCALATE_TO: string[];
}

/** The lists a place may be named in: under OAuth, each entry says its workspace. */
const PLACE_LISTS = ['AGENT_ALLOWED_CHANNELS', 'AGENT_ESCALATE_TO'] as const;

/** What is wrong with the tenancy settings, as [variable, message] pairs; `oauth`: OAuth installs are on. */
export function tenantProblems(env: TenantsEnv, oauth: boolean): Array<[string, string]> {
  const problems: Array<[string, string]> = [];
  if (!oauth) {
    // Unset Slack (npm start's local sandbox) may still be OAuth once the sandbox is up: nothing to say.
    for (const name of ['SLACK_ALLOWED_TEAMS', 'AGENT_API_KEY_TEAMS'] as const)
      if (env[name] !== undefined && env.SLACK_BOT_TOKEN !== undefined)
        problems.push([
          name,
          `${name} applies to OAuth installs only (SLACK_CLIENT_ID…): with SLACK_BOT_TOKEN the bot serves that token's workspace alone`,
        ]);
    return problems;
  }
  if (env.SLACK_ALLOWED_TEAMS === undefined)
    problems.push([
      'SLACK_ALLOWED_TEAMS',
      'SLACK_ALLOWED_TEAMS is required for OAuth installs: the team ids (T…) and organisation ids (E…) that may install and use the app, comma-separated, or * to admit every workspace',
    ]);
  for (const name of ['SLACK_ALLOWED_TEAMS', 'AGENT_API_KEY_TEAMS'] as const) {
    const parsed = parseTeamList(name, env[name]);
    if (!parsed.ok) for (const message of parsed.problems) problems.push([name, message]);
  }
  for (const name of PLACE_LISTS) {
    for (const raw of env[name]) {
      if (parseEntry(raw).team !== undefined) continue;
      problems.push([
        name,
        `${name} under OAuth installs: each entry names its workspace, like T0NORTH:${raw.slice(0, 40)} (a place's id doesn't say which workspace reads it: dm is in every one, a shared channel in two); got "${raw.slice(0, 60)}"`,
      ]);
    }
  }
  return problems;
}

/** SLACK_ALLOWED_TEAMS, once tenantProblems has passed (admits nobody when unset). */
export function allowedTeamsOf(env: Pick<TenantsEnv, 'SLACK_ALLOWED_TEAMS'>): TeamList {
  return listOf('SLACK_ALLOWED_TEAMS', env.SLACK_ALLOWED_TEAMS);
}

/**
 * Where AGENT_API_KEY serves a workspace with no key linked: under OAuth only where AGENT_API_KEY_TEAMS
 * lists it (unset: nowhere); with one bot token, its workspace (undefined: no limit).
 */
export function keyLendingOf(
  env: Pick<TenantsEnv, 'AGENT_API_KEY_TEAMS'>,
  oauth: boolean,
): { apiKeyTeams?: TeamList } {
  return oauth ? { apiKeyTeams: listOf('AGENT_API_KEY_TEAMS', env.AGENT_API_KEY_TEAMS) } : {};
}

function listOf(name: string, raw: string | undefined): TeamList {
  const parsed = parseTeamList(name, raw);
  return parsed.ok ? parsed.list : { any: false, ids: new Set() };
}
