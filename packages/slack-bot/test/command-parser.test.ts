import { describe, expect, it } from 'vitest';
import { startModal } from '../src/blocks/modals.js';
import { parseAgentCommand, USAGE } from '../src/command-parser.js';

describe('/agent command parsing', () => {
  it.each([
    ['', { kind: 'help' }],
    ['help', { kind: 'help' }],
    ['start', { kind: 'start_modal' }],
    ['start ship the notes', { kind: 'start', goal: 'ship the notes' }],
    [
      'start ship --budget 5 the notes --max-iterations 30',
      { kind: 'start', goal: 'ship the notes', budget: 5, maxIterations: 30 },
    ],
    ['start scenario:approval go --budget=2.5', { kind: 'start', goal: 'scenario:approval go', budget: 2.5 }],
    ['status', { kind: 'status' }],
    ['status sess_1', { kind: 'status', sessionId: 'sess_1' }],
    ['list', { kind: 'list' }],
    ['history sess_1', { kind: 'history', sessionId: 'sess_1' }],
    ['pause sess_1', { kind: 'pause', sessionId: 'sess_1' }],
    ['CANCEL sess_1', { kind: 'cancel', sessionId: 'sess_1' }],
    [
      'redirect sess_1 focus on the docs',
      { kind: 'redirect', sessionId: 'sess_1', message: 'focus on the docs' },
    ],
    [
      'redirect sess_1 first this\n\nthen  that',
      { kind: 'redirect', sessionId: 'sess_1', message: 'first this\n\nthen  that' },
    ],
    ['start line one\nline two --budget 2', { kind: 'start', goal: 'line one\nline two', budget: 2 }],
    // --channel before or after the goal, as every flag.
    ['start ship it --channel', { kind: 'start', goal: 'ship it', codeChannel: true }],
    ['start --channel ship it', { kind: 'start', goal: 'ship it', codeChannel: true }],
    ['start --channel --budget 5 ship it', { kind: 'start', goal: 'ship it', budget: 5, codeChannel: true }],
  ])('%j', (text, expected) => {
    expect(parseAgentCommand(text)).toEqual(expected);
  });

  it.each([
    ['start x --budget -1', /--budget must be a positive number of dollars, got "-1"/],
    ['start x --budget lots', /--budget must be a positive number/],
    ['start x --max-iterations 2.5', /--max-iterations must be a whole number/],
    ['start x --turbo', /unknown flag --turbo/],
    ['pause', /session id is missing/],
    ['redirect sess_1', /both are needed/],
    ['launch rockets', /unknown subcommand "launch"/],
  ])('%j is a usage error', (text, message) => {
    const result = parseAgentCommand(text);
    expect(result.kind).toBe('error');
    if (result.kind === 'error') expect(result.message).toMatch(message);
  });

  it('writes mrkdwn Slack will not read as links: placeholders and what was typed escaped', () => {
    // A bare <…> in mrkdwn is a link or a mention to Slack.
    const bare = /<(?![@#!]|https?:|mailto:)/;
    expect(USAGE).not.toMatch(bare);
    expect(USAGE).toContain('&lt;goal&gt;');
    for (const text of ['launch<b>', 'start x --budget <5>', 'start x --turbo<x>', 'pause']) {
      const parsed = parseAgentCommand(text);
      expect(parsed.kind).toBe('error');
      expect(parsed.kind === 'error' && parsed.message).not.toMatch(bare);
    }
  });
});

describe('a mistyped subcommand', () => {
  it.each([
    ['strat ship it', 'start'],
    ['stauts', 'status'],
    ['lsit', 'list'],
    ['puase sess_1', 'pause'],
    ['cancle sess_1', 'cancel'],
    ['redirekt sess_1 go', 'redirect'],
    ['Strat', 'start'],
  ])('%j: Did you mean %s?, without the whole help', (text, meant) => {
    const result = parseAgentCommand(text);
    expect(result).toMatchObject({ kind: 'error', brief: true });
    if (result.kind === 'error') expect(result.message).toContain(`Did you mean \`/agent ${meant}\`?`);
  });

  it('a word far from every subcommand is unknown, and gets the help', () => {
    expect(parseAgentCommand('launch rockets')).toEqual({
      kind: 'error',
      message: 'unknown subcommand "launch"',
    });
    expect(parseAgentCommand('go')).toMatchObject({ kind: 'error', message: 'unknown subcommand "go"' });
  });

  it('the help says what a round is', () => {
    expect(USAGE).toContain('*What is a round?*');
  });
});

describe('help agrees with the start form', () => {
  it("help's example flags are the form's placeholders, and the iterations are the service's default (50)", () => {
    const form = JSON.stringify(startModal('C0AGENTS'));
    const budget = /--budget (\d+)/.exec(USAGE)?.[1];
    const iterations = /--max-iterations (\d+)/.exec(USAGE)?.[1];
    expect(iterations).toBe('50');
    expect(form).toContain(`"placeholder":{"type":"plain_text","text":"${iterations}"`);
    expect(form).toContain(`"placeholder":{"type":"plain_text","text":"${budget}"`);
  });
});
