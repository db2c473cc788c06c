import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.js';
import { configProblems } from './config-problems.js';

/** A signing secret of Slack's length (32 hex digits): a shorter one is refused. */
const SIGNING = '5f1c0d2e9a8b7c6d5e4f3a2b1c0d9e8f';

const OAUTH = {
  SLACK_CLIENT_ID: '123.456',
  SLACK_CLIENT_SECRET: 'client-secret-value',
  SLACK_STATE_SECRET: 'a-state-secret-of-32-characters!',
  SLACK_SIGNING_SECRET: SIGNING,
  AGENT_KEY_ENCRYPTION_KEY: 'a'.repeat(64),
  AGENT_SERVICE_URL: 'http://127.0.0.1:4010',
  AGENT_API_KEY: 'operator-key',
};
const ONE_TOKEN = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: SIGNING };

describe('the workspaces served under OAuth (SLACK_ALLOWED_TEAMS)', () => {
  it('is required under OAuth, and the error names it', () => {
    expect(configProblems(OAUTH)).toContain(
      'SLACK_ALLOWED_TEAMS: SLACK_ALLOWED_TEAMS is required for OAuth installs',
    );
  });

  it('takes team and organisation ids, or * written out', () => {
    expect(
      loadConfig({ ...OAUTH, SLACK_ALLOWED_TEAMS: 'T0NORTH,E0GLOBEX' }).slack?.oauth?.allowedTeams,
    ).toEqual({
      any: false,
      ids: new Set(['T0NORTH', 'E0GLOBEX']),
    });
    expect(loadConfig({ ...OAUTH, SLACK_ALLOWED_TEAMS: '*' }).slack?.oauth?.allowedTeams).toEqual({
      any: true,
    });
    expect(configProblems({ ...OAUTH, SLACK_ALLOWED_TEAMS: 'T0NORTH,north wind' })).toContain(
      'SLACK_ALLOWED_TEAMS: SLACK_ALLOWED_TEAMS takes team ids (T…) and organisation ids (E…), comma-separated, or * for every workspace; got "north wind"',
    );
  });

  it('is not needed with one bot token, and refused there (it would do nothing)', () => {
    expect(configProblems(ONE_TOKEN)).toBe('');
    expect(configProblems({ ...ONE_TOKEN, SLACK_ALLOWED_TEAMS: 'T0NORTH' })).toContain(
      'SLACK_ALLOWED_TEAMS: SLACK_ALLOWED_TEAMS applies to OAuth installs only',
    );
  });
});

describe("the operator's key, lent per workspace (AGENT_API_KEY_TEAMS)", () => {
  it('under OAuth, unset lends it to nobody; a list or * lends it there', () => {
    const base = { ...OAUTH, SLACK_ALLOWED_TEAMS: '*' };
    expect(loadConfig(base).keys?.apiKeyTeams).toEqual({ any: false, ids: new Set() });
    expect(loadConfig({ ...base, AGENT_API_KEY_TEAMS: 'T0NORTH' }).keys?.apiKeyTeams).toEqual({
      any: false,
      ids: new Set(['T0NORTH']),
    });
    expect(loadConfig({ ...base, AGENT_API_KEY_TEAMS: '*' }).keys?.apiKeyTeams).toEqual({ any: true });
    expect(configProblems({ ...base, AGENT_API_KEY_TEAMS: 'U0ALICE' })).toContain(
      'AGENT_API_KEY_TEAMS: AGENT_API_KEY_TEAMS takes team ids (T…)',
    );
  });

  it('with one bot token, AGENT_API_KEY serves its workspace as it always did', () => {
    expect(loadConfig(ONE_TOKEN).keys?.apiKeyTeams).toBeUndefined();
    expect(configProblems({ ...ONE_TOKEN, AGENT_API_KEY_TEAMS: '*' })).toContain(
      'AGENT_API_KEY_TEAMS: AGENT_API_KEY_TEAMS applies to OAuth installs only',
    );
  });
});

describe('allowlists of places under OAuth', () => {
  const base = { ...OAUTH, SLACK_ALLOWED_TEAMS: '*' };

  it('an unprefixed dm or channel is refused: it would be read in every workspace', () => {
    const said = configProblems({ ...base, AGENT_ALLOWED_CHANNELS: 'dm,T0NORTH:C0NAGENTS,C0AGENTS' });
    expect(said).toContain(
      'AGENT_ALLOWED_CHANNELS: AGENT_ALLOWED_CHANNELS under OAuth installs: each entry names its workspace, like T0NORTH:dm',
    );
    expect(said).toContain('got "C0AGENTS"');
    expect(said).not.toContain('got "T0NORTH:C0NAGENTS"');
    expect(configProblems({ ...base, AGENT_ESCALATE_TO: 'S0LEADS' })).toContain(
      'AGENT_ESCALATE_TO: AGENT_ESCALATE_TO under OAuth installs: each entry names its workspace',
    );
  });

  it('prefixed entries are taken; approvers keep their per-workspace reading; one token is unchanged', () => {
    expect(
      loadConfig({ ...base, AGENT_ALLOWED_CHANNELS: 'T0NORTH:dm', AGENT_APPROVERS: 'U0BOB' }).allowedChannels,
    ).toEqual(['T0NORTH:dm']);
    expect(loadConfig({ ...ONE_TOKEN, AGENT_ALLOWED_CHANNELS: 'dm,C0AGENTS' }).allowedChannels).toEqual([
      'dm',
      'C0AGENTS',
    ]);
  });
});
