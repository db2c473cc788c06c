import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('configuration', () => {
  it('defaults to the sandbox and the embedded emulator and store', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      slack: undefined,
      service: undefined,
      dataDir: './data',
      port: 3000,
      showReasoning: false,
    });
  });

  it('reads a production setup', () => {
    const config = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_SIGNING_SECRET: 's',
      AGENT_SERVICE_URL: 'https://agents.example.com',
      AGENT_API_KEY: 'k',
      DATABASE_URL: 'postgres://db/agents',
      AGENT_APPROVERS: 'U1, S2',
      PORT: '8080',
    });
    expect(config).toMatchObject({
      slack: { botToken: 'xoxb-1', signingSecret: 's' },
      service: { url: 'https://agents.example.com', apiKey: 'k' },
      databaseUrl: 'postgres://db/agents',
      approvers: ['U1', 'S2'],
      port: 8080,
    });
  });

  it('names every variable that is wrong, at once', () => {
    const error = (() => {
      try {
        loadConfig({
          SLACK_BOT_TOKEN: 'xoxp-user',
          PORT: 'eighty',
          AGENT_SERVICE_URL: 'ftp:/x',
          DATABASE_URL: 'mysql://x',
        });
      } catch (e) {
        return e as Error;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    for (const name of ['SLACK_BOT_TOKEN', 'PORT', 'AGENT_SERVICE_URL', 'DATABASE_URL'])
      expect(error?.message).toContain(name);
    expect(error?.message).not.toContain('xoxp-user');
  });

  it('requires a signing secret or an app token with a bot token, and a key with a service URL', () => {
    expect(() => loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1' })).toThrow(/SLACK_SIGNING_SECRET/);
    expect(() => loadConfig({ AGENT_SERVICE_URL: 'https://a.example' })).toThrow(/AGENT_API_KEY/);
  });
});

describe('the bot process', () => {
  const main = new URL('../dist/main.js', import.meta.url).pathname;
  const run = (env: Record<string, string>) =>
    spawnSync(process.execPath, [main], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });

  it('exits 2 with one clear message when Slack or the service is not configured', () => {
    const result = run({});
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/SLACK_BOT_TOKEN/);
    expect(result.stderr).toMatch(/AGENT_SERVICE_URL and AGENT_API_KEY/);
    expect(result.stdout).toBe('');
  });

  it('names each invalid variable without echoing its value', () => {
    const result = run({
      SLACK_BOT_TOKEN: 'not-a-token-secret-123',
      PORT: 'eighty',
      AGENT_SERVICE_URL: 'ftp://x',
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/SLACK_BOT_TOKEN: SLACK_BOT_TOKEN must be a bot token/);
    expect(result.stderr).toMatch(/PORT: PORT must be a number/);
    expect(result.stderr).toMatch(/AGENT_SERVICE_URL/);
    expect(result.stderr).not.toContain('not-a-token-secret-123');
  });
});
