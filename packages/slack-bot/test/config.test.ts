import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ConfigError, databasePassword, loadConfig } from '../src/config/index.js';

/** A signing secret of Slack's length (32 hex digits): a shorter one is refused. */
const SIGNING = '5f1c0d2e9a8b7c6d5e4f3a2b1c0d9e8f';

describe('configuration', () => {
  it('Workflow Builder steps: a day’s deadline, a week’s retention, runs nobody ran off; each problem named', () => {
    expect(loadConfig({}).workflows).toEqual({
      checkMs: 5_000,
      deadlineMs: 24 * 3_600_000,
      retentionMs: 7 * 24 * 3_600_000,
      unattended: false,
    });
    expect(
      loadConfig({
        WORKFLOW_STEP_DEADLINE: '2h',
        WORKFLOW_STEP_RETENTION: '48h',
        WORKFLOW_UNATTENDED_RUNS: 'true',
      }).workflows,
    ).toMatchObject({ deadlineMs: 7_200_000, retentionMs: 172_800_000, unattended: true });
    expect(() =>
      loadConfig({
        WORKFLOW_STEP_DEADLINE: 'soon',
        WORKFLOW_STEP_RETENTION: '10m',
        WORKFLOW_UNATTENDED_RUNS: 'yes',
      }),
    ).toThrow(
      /WORKFLOW_STEP_DEADLINE must be a duration[\s\S]*WORKFLOW_STEP_RETENTION must be at least 1h[\s\S]*WORKFLOW_UNATTENDED_RUNS must be true or false/,
    );
  });

  it('open MCP waits: 5 per person and 100 per workspace unless set; a bad number is named', () => {
    expect(loadConfig({}).mcp?.waitLimits).toEqual({ perPerson: 5, perWorkspace: 100 });
    expect(
      loadConfig({ MCP_WAITS_PER_PERSON: '8', MCP_WAITS_PER_WORKSPACE: '1000' }).mcp?.waitLimits,
    ).toEqual({ perPerson: 8, perWorkspace: 1000 });
    expect(() => loadConfig({ MCP_WAITS_PER_PERSON: '0', MCP_WAITS_PER_WORKSPACE: 'many' })).toThrow(
      /MCP_WAITS_PER_PERSON[\s\S]*MCP_WAITS_PER_WORKSPACE/,
    );
  });

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
      SLACK_SIGNING_SECRET: SIGNING,
      AGENT_SERVICE_URL: 'https://agents.example.com',
      AGENT_API_KEY: 'k',
      DATABASE_URL: 'postgres://db/agents',
      AGENT_APPROVERS: 'U1, S2',
      PORT: '8080',
    });
    expect(config).toMatchObject({
      slack: { botToken: 'xoxb-1', signingSecret: SIGNING },
      service: { url: 'https://agents.example.com', apiKey: 'k' },
      databaseUrl: 'postgres://db/agents',
      approvers: ['U1', 'S2'],
      port: 8080,
    });
  });

  it('HOST: 0.0.0.0 in production; 127.0.0.1 when Slack is a local sandbox; as given when given', () => {
    const slack = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: SIGNING };
    expect(loadConfig(slack).host).toBe('0.0.0.0');
    expect(loadConfig({ ...slack, HOST: '' }).host).toBe('0.0.0.0');
    expect(loadConfig({ ...slack, SLACK_API_URL: 'https://slack.example.com/api/' }).host).toBe('0.0.0.0');
    for (const local of [
      'http://127.0.0.1:4020/api/',
      'http://localhost:4020/api/',
      'http://[::1]:4020/api/',
    ])
      expect(loadConfig({ ...slack, SLACK_API_URL: local }).host, local).toBe('127.0.0.1');
    expect(loadConfig({ ...slack, SLACK_API_URL: 'http://127.0.0.1:4020/api/', HOST: '::' }).host).toBe('::');
  });

  it('finds the database password to scrub from logs', () => {
    expect(databasePassword('postgres://bot:s%40cret-pw@db:5432/agents')).toBe('s@cret-pw');
    expect(databasePassword('postgres://bot@db/agents')).toBeUndefined();
    expect(databasePassword(undefined)).toBeUndefined();
  });

  it('AGENT_THREAD_REPLIES: steer by default, mention-only when asked, anything else named', () => {
    expect(loadConfig({}).threadReplies).toBe('steer');
    expect(loadConfig({ AGENT_THREAD_REPLIES: 'mention-only' }).threadReplies).toBe('mention-only');
    expect(() => loadConfig({ AGENT_THREAD_REPLIES: 'all' })).toThrow(
      'AGENT_THREAD_REPLIES: AGENT_THREAD_REPLIES must be steer or mention-only',
    );
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

  it('AGENT_SLACK_PACING: on by default, off for the naive strategy, anything else named', () => {
    expect(loadConfig({}).slackPacing).toBe('on');
    expect(loadConfig({ AGENT_SLACK_PACING: 'off' }).slackPacing).toBe('off');
    expect(() => loadConfig({ AGENT_SLACK_PACING: 'fast' })).toThrow(
      'AGENT_SLACK_PACING: AGENT_SLACK_PACING must be on or off',
    );
  });

  it('MCP_SLACK_IDENTITY: off by default; on, it needs the signing secret Slackbot signs with', () => {
    expect(loadConfig({}).mcp?.slackIdentity).toBe(false);
    expect(() => loadConfig({ MCP_SLACK_IDENTITY: 'yes' })).toThrow(
      'MCP_SLACK_IDENTITY: MCP_SLACK_IDENTITY must be true or false',
    );
    expect(() =>
      loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1', MCP_SLACK_IDENTITY: 'true' }),
    ).toThrow('MCP_SLACK_IDENTITY: true needs SLACK_SIGNING_SECRET');
    const on = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_SIGNING_SECRET: SIGNING,
      MCP_SLACK_IDENTITY: 'true',
    });
    expect(on.mcp?.slackIdentity).toBe(true);
  });

  it('MCP_TRUSTED_PROXIES: none by default; addresses, CIDRs and names taken; anything else named with the rule', () => {
    expect(loadConfig({}).mcp?.trustedProxies).toEqual([]);
    expect(
      loadConfig({ MCP_TRUSTED_PROXIES: 'uniquelocal, 203.0.113.0/24,::1' }).mcp?.trustedProxies,
    ).toEqual(['uniquelocal', '203.0.113.0/24', '::1']);
    expect(() => loadConfig({ MCP_TRUSTED_PROXIES: 'loopback,the-ingress' })).toThrow(
      'MCP_TRUSTED_PROXIES: "the-ingress" is not an address range',
    );
  });

  it('requires a signing secret or an app token with a bot token, and a key with a service URL', () => {
    expect(() => loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1' })).toThrow(/SLACK_SIGNING_SECRET/);
    expect(() => loadConfig({ AGENT_SERVICE_URL: 'https://a.example' })).toThrow(/AGENT_API_KEY/);
  });
});

describe('approvals configuration', () => {
  it("defaults: today's policy, reminders after 15 minutes up to 3, no timeout, audit off, kept a year", () => {
    expect(loadConfig({}).approvals).toEqual({
      policy: 'starter-or-approvers',
      remindAfterMs: 15 * 60_000,
      remindMax: 3,
      onTimeout: 'leave',
      auditRetentionDays: 365,
    });
  });

  it('reads durations as 90s, 15m, 2h or plain seconds; 0 turns reminders off', () => {
    const read = (v: string) => loadConfig({ AGENT_REMIND_AFTER: v }).approvals.remindAfterMs;
    expect(read('90s')).toBe(90_000);
    expect(read('15m')).toBe(900_000);
    expect(read('2h')).toBe(7_200_000);
    expect(read('45')).toBe(45_000);
    expect(read('0')).toBe(0);
    const all = loadConfig({
      AGENT_APPROVAL_POLICY: 'approvers-only',
      AGENT_REMIND_MAX: '5',
      AGENT_ESCALATE_TO: 'S0LEADS',
      AGENT_QUESTION_TIMEOUT: '4h',
      AGENT_ON_TIMEOUT: 'reject',
      AUDIT_TOKEN: 'a-long-enough-audit-token',
      AUDIT_RETENTION_DAYS: '30',
    }).approvals;
    expect(all).toMatchObject({
      policy: 'approvers-only',
      remindMax: 5,
      escalateTo: 'S0LEADS',
      questionTimeoutMs: 4 * 3_600_000,
      onTimeout: 'reject',
      auditRetentionDays: 30,
    });
  });

  it("takes an env file's empty lines (NAME=) as unset", () => {
    const blank = Object.fromEntries(
      [
        'AGENT_APPROVAL_POLICY',
        'AGENT_REMIND_AFTER',
        'AGENT_REMIND_MAX',
        'AGENT_ESCALATE_TO',
        'AGENT_QUESTION_TIMEOUT',
        'AGENT_ON_TIMEOUT',
        'AUDIT_TOKEN',
        'AUDIT_RETENTION_DAYS',
      ].map((name) => [name, '']),
    );
    expect(loadConfig(blank).approvals).toEqual(loadConfig({}).approvals);
  });

  it('AGENT_ALLOWED_CHANNELS takes channel ids and dm; anything else is named', () => {
    expect(loadConfig({ AGENT_ALLOWED_CHANNELS: 'C0AGENTS, G0OPS, dm' }).allowedChannels).toEqual([
      'C0AGENTS',
      'G0OPS',
      'dm',
    ]);
    expect(() => loadConfig({ AGENT_ALLOWED_CHANNELS: 'C0AGENTS,#general' })).toThrow(
      `AGENT_ALLOWED_CHANNELS: AGENT_ALLOWED_CHANNELS takes channel ids (C…, G…) and dm (the bot's direct messages), each optionally prefixed with its workspace (T0NORTH:…); got "#general"`,
    );
  });

  it('AGENT_MAX_BUDGET: unset by default, a positive number of USD when set', () => {
    expect(loadConfig({}).approvals.maxBudget).toBeUndefined();
    expect(loadConfig({ AGENT_MAX_BUDGET: '' }).approvals.maxBudget).toBeUndefined();
    expect(loadConfig({ AGENT_MAX_BUDGET: '7.50' }).approvals.maxBudget).toBe(7.5);
    expect(() => loadConfig({ AGENT_MAX_BUDGET: 'lots' })).toThrow(
      'AGENT_MAX_BUDGET: AGENT_MAX_BUDGET must be a number of USD, like 25 or 7.50',
    );
    expect(() => loadConfig({ AGENT_MAX_BUDGET: '0' })).toThrow('AGENT_MAX_BUDGET must be above 0');
  });

  it('names each bad approvals variable and its rule', () => {
    let message = '';
    try {
      loadConfig({
        AGENT_APPROVAL_POLICY: 'anyone',
        AGENT_REMIND_AFTER: 'soon',
        AGENT_ESCALATE_TO: '@ops',
        AGENT_ON_TIMEOUT: 'explode',
        AUDIT_TOKEN: 'short',
        METRICS_TOKEN: 'short',
      });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(
      /AGENT_APPROVAL_POLICY must be starter-or-approvers, approvers-only or channel-members/,
    );
    expect(message).toMatch(/AGENT_REMIND_AFTER must be a duration like 90s/);
    expect(message).toMatch(/AGENT_ESCALATE_TO must be a user group id/);
    expect(message).toMatch(/AGENT_ON_TIMEOUT must be leave, reject or cancel/);
    expect(message).toMatch(/AUDIT_TOKEN must be at least 16 characters/);
    expect(message).toMatch(/METRICS_TOKEN must be at least 16 characters/);
    expect(message).not.toContain('short');
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
