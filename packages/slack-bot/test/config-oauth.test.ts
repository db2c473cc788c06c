import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.js';
import { DEFAULT_BOT_SCOPES } from '../src/config/slack.js';
import { configProblems } from './config-problems.js';

/** A signing secret of Slack's length (32 hex digits): a shorter one is refused. */
const SIGNING = '5f1c0d2e9a8b7c6d5e4f3a2b1c0d9e8f';

const OAUTH = {
  SLACK_CLIENT_ID: '123.456',
  SLACK_CLIENT_SECRET: 'client-secret-value',
  SLACK_STATE_SECRET: 'a-state-secret-of-32-characters!',
  SLACK_SIGNING_SECRET: SIGNING,
  AGENT_KEY_ENCRYPTION_KEY: 'a'.repeat(64),
  SLACK_ALLOWED_TEAMS: 'T0NORTH',
};

describe('configuration of OAuth installs', () => {
  it('reads the client id, secret and state secret; scopes default to the manifest', () => {
    const config = loadConfig({ ...OAUTH, SLACK_API_URL: 'http://127.0.0.1:4000/api' });
    expect(config.slack).toEqual({
      signingSecret: SIGNING,
      apiUrl: 'http://127.0.0.1:4000/api',
      oauth: {
        clientId: '123.456',
        clientSecret: 'client-secret-value',
        stateSecret: 'a-state-secret-of-32-characters!',
        scopes: DEFAULT_BOT_SCOPES,
        allowedTeams: { any: false, ids: new Set(['T0NORTH']) },
        apiUrl: 'http://127.0.0.1:4000/api/',
      },
    });
    expect(config.slack?.botToken).toBeUndefined();
  });

  it('takes scopes, a redirect URL and an authorize page', () => {
    const config = loadConfig({
      ...OAUTH,
      SLACK_SCOPES: 'commands, chat:write',
      SLACK_REDIRECT_URI: 'https://bot.example.com/slack/oauth_redirect',
      SLACK_AUTHORIZE_URL: 'https://slack.example.com/oauth/v2/authorize',
    });
    expect(config.slack?.oauth).toMatchObject({
      scopes: ['commands', 'chat:write'],
      redirectUri: 'https://bot.example.com/slack/oauth_redirect',
      authorizationUrl: 'https://slack.example.com/oauth/v2/authorize',
    });
  });

  it('with MCP_SLACK_IDENTITY, an install asks for mcp:connect too, unless SLACK_SCOPES says what to ask', () => {
    expect(loadConfig({ ...OAUTH, MCP_SLACK_IDENTITY: 'true' }).slack?.oauth?.scopes).toEqual([
      ...DEFAULT_BOT_SCOPES,
      'mcp:connect',
    ]);
    expect(loadConfig(OAUTH).slack?.oauth?.scopes).not.toContain('mcp:connect');
    const given = loadConfig({ ...OAUTH, MCP_SLACK_IDENTITY: 'true', SLACK_SCOPES: 'commands' });
    expect(given.slack?.oauth?.scopes).toEqual(['commands']);
  });

  it('names each missing or conflicting variable', () => {
    expect(configProblems({ SLACK_CLIENT_ID: '1', SLACK_SIGNING_SECRET: SIGNING })).toContain(
      'SLACK_CLIENT_SECRET: SLACK_CLIENT_SECRET is required for OAuth installs',
    );
    expect(configProblems({ SLACK_CLIENT_ID: '1', SLACK_SIGNING_SECRET: SIGNING })).toContain(
      'SLACK_STATE_SECRET: SLACK_STATE_SECRET is required',
    );
    expect(configProblems({ ...OAUTH, SLACK_BOT_TOKEN: 'xoxb-1' })).toContain(
      'SLACK_BOT_TOKEN: SLACK_BOT_TOKEN must be unset with SLACK_CLIENT_ID',
    );
    expect(configProblems({ ...OAUTH, SLACK_APP_TOKEN: 'xapp-1' })).toContain('not Socket Mode');
    const { SLACK_SIGNING_SECRET: _, ...unsigned } = OAUTH;
    expect(configProblems(unsigned)).toContain(
      'SLACK_SIGNING_SECRET: SLACK_SIGNING_SECRET is required for OAuth installs',
    );
    expect(configProblems({ ...OAUTH, SLACK_STATE_SECRET: 'short' })).toContain(
      'SLACK_STATE_SECRET: SLACK_STATE_SECRET must be at least 16 characters',
    );
    expect(configProblems({ ...OAUTH, SLACK_REDIRECT_URI: 'nope' })).toContain(
      'SLACK_REDIRECT_URI: SLACK_REDIRECT_URI must be an http(s) URL',
    );
  });

  it('OAuth needs AGENT_KEY_ENCRYPTION_KEY: the Slack tokens are stored encrypted with it', () => {
    const { AGENT_KEY_ENCRYPTION_KEY: _, ...keyless } = OAUTH;
    expect(configProblems(keyless)).toContain(
      'AGENT_KEY_ENCRYPTION_KEY: AGENT_KEY_ENCRYPTION_KEY is required for OAuth installs: the Slack tokens of each workspace are stored encrypted with it',
    );
    expect(configProblems({ ...keyless, AGENT_KEY_ENCRYPTION_KEY: '  ' })).toContain(
      'AGENT_KEY_ENCRYPTION_KEY is required',
    );
    // Single-workspace mode keeps its token in the environment: no key needed.
    expect(configProblems({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: SIGNING })).toBe('');
  });

  it('never quotes a secret in a problem', () => {
    const message = configProblems({ ...OAUTH, SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' });
    expect(message).not.toContain('client-secret-value');
    expect(message).not.toContain('a-state-secret');
  });
});
