/**
 * The Agent Session Service: its URL, the operator's key (`AGENT_API_KEY`), and under OAuth installs the
 * workspaces that key is lent to while they have none of their own (`AGENT_API_KEY_TEAMS`).
 */
import { z } from 'zod';
import type { TeamList } from '../services/installs/admission.js';
import { httpUrl, optionalText, type Problem } from './fields.js';
import { teamListOf, teamListProblems } from './team-list.js';

export const serviceSchema = z.object({
  AGENT_SERVICE_URL: httpUrl('AGENT_SERVICE_URL'),
  AGENT_API_KEY: z.string().min(1).optional(),
  AGENT_API_KEY_TEAMS: optionalText,
});

type ServiceEnv = z.output<typeof serviceSchema> & { SLACK_BOT_TOKEN?: string | undefined };

/** What is wrong with the service's variables together; `oauth`: OAuth installs are on. */
export function serviceProblems(env: ServiceEnv, oauth: boolean): Problem[] {
  const mode = { oauth, botToken: env.SLACK_BOT_TOKEN !== undefined };
  const problems = teamListProblems('AGENT_API_KEY_TEAMS', env.AGENT_API_KEY_TEAMS, mode);
  if (env.AGENT_SERVICE_URL && !env.AGENT_API_KEY)
    problems.push(['AGENT_API_KEY', 'AGENT_API_KEY is required with AGENT_SERVICE_URL']);
  return problems;
}

export function serviceSettings(env: ServiceEnv): { url: string; apiKey: string } | undefined {
  return env.AGENT_SERVICE_URL && env.AGENT_API_KEY
    ? { url: env.AGENT_SERVICE_URL, apiKey: env.AGENT_API_KEY }
    : undefined;
}

/**
 * Where AGENT_API_KEY serves a workspace with no key linked: under OAuth only where AGENT_API_KEY_TEAMS
 * lists it (unset: nowhere); with one bot token, its workspace (undefined: no limit).
 */
export function keyLendingOf(env: ServiceEnv, oauth: boolean): { apiKeyTeams?: TeamList } {
  return oauth ? { apiKeyTeams: teamListOf('AGENT_API_KEY_TEAMS', env.AGENT_API_KEY_TEAMS) } : {};
}
