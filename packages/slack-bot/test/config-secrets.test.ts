import { describe, expect, it } from 'vitest';
import { configProblems } from './config-problems.js';

/** A value that is one of the rule's own words: the message names it as the rule, not as the value. */
const RULE_WORD = /^(replace-me|change-me|changeme|placeholder|example)$/i;

const VALID = {
  SLACK_BOT_TOKEN: 'xoxb-1111-2222-a1b2c3d4e5f6',
  SLACK_SIGNING_SECRET: '8f742231b10e8888abcd99aa7d3c85a5',
  AGENT_SERVICE_URL: 'http://127.0.0.1:4010',
  AGENT_API_KEY: 'sk_live_9c1f7e2a4b6d8f0a',
};

describe('secrets left as placeholders', () => {
  it('a valid setup has no problem (the checks below would pass on any message)', () => {
    expect(configProblems(VALID)).toBe('');
  });

  it.each([
    ['SLACK_SIGNING_SECRET', 'replace-me'],
    ['SLACK_SIGNING_SECRET', 'CHANGEME-to-the-signing-secret-of-the-app'],
    ['SLACK_BOT_TOKEN', 'xoxb-replace-me'],
    ['SLACK_APP_TOKEN', 'xapp-Placeholder-1'],
    ['AGENT_API_KEY', 'change-me'],
    ['METRICS_TOKEN', 'replace-me-with-a-long-random-string'],
    ['AUDIT_TOKEN', 'example-audit-token-0123'],
    ['AGENT_KEY_ENCRYPTION_KEY', 'replace-me'],
    ['AGENT_KEY_ENCRYPTION_KEY_PREVIOUS', 'placeholder'],
    ['SLACK_CLIENT_SECRET', 'replace-me'],
    ['SLACK_STATE_SECRET', 'replace-me-0123456789'],
    ['DATABASE_URL', 'postgres://agents:replace-me@db.internal:5432/agents'],
  ])('%s = %s is refused, named with the rule', (name, value) => {
    const problems = configProblems({ ...VALID, [name]: value });
    expect(problems).toMatch(
      new RegExp(`^${name}: ${name}.* is a template's placeholder .*: set the real secret$`, 'm'),
    );
    if (!RULE_WORD.test(value)) expect(problems).not.toContain(value);
  });

  it('a real value that merely contains a placeholder word is taken', () => {
    expect(configProblems({ ...VALID, METRICS_TOKEN: 'a1b2c3d4-example-e5f6a7b8' })).toBe('');
    expect(
      configProblems({ ...VALID, DATABASE_URL: 'postgres://agents:s3cret-pw@db.example.com:5432/agents' }),
    ).toBe('');
  });
});

describe('SLACK_SIGNING_SECRET', () => {
  it('shorter than Slack’s 32 characters is refused, naming the rule and not the value', () => {
    const problems = configProblems({ ...VALID, SLACK_SIGNING_SECRET: 'hunter2-short-secret' });
    expect(problems).toBe(
      "SLACK_SIGNING_SECRET: SLACK_SIGNING_SECRET must be at least 32 characters, as Slack's are (32 hex digits: copy it from the app's Basic Information page)",
    );
  });

  it('Slack’s own length, and the sandbox’s longer ones, are taken', () => {
    expect(configProblems({ ...VALID, SLACK_SIGNING_SECRET: 'a'.repeat(31) })).not.toBe('');
    expect(configProblems({ ...VALID, SLACK_SIGNING_SECRET: 'a1'.repeat(16) })).toBe('');
    expect(configProblems({ ...VALID, SLACK_SIGNING_SECRET: 'f0'.repeat(24) })).toBe('');
  });
});
