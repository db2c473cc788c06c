import { validateBlocks, validateView } from '@agent-sessions/slack-sandbox';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { question as request } from '../../../../test/support/questions.js';
import {
  ACTIONS,
  answeredPrompt,
  answerModal,
  type CardState,
  costLimitMessage,
  costLimitResolved,
  decodeRef,
  homeView,
  promptAsAnswered,
  promptMessage,
  raiseBudgetModal,
  redirectModal,
  rejectModal,
  sessionCard,
  splitText,
  startModal,
} from '../../src/index.js';

// Every builder's output must pass Slack's limits: the sandbox's validator is the referee.
const valid = (blocks: unknown[]) => expect(validateBlocks(blocks, 'message')).toEqual([]);

const card: CardState = {
  sessionId: 'sess_1',
  goal: 'Ship the release notes',
  status: 'running',
  startedBy: 'U0ALICE',
  totalCost: 1.25,
  budget: 5,
  rounds: 2,
  createdAt: '2026-11-22T12:00:00.000Z',
  now: Date.parse('2026-11-22T12:03:12.000Z'),
};

const actionIds = (blocks: unknown[]) =>
  JSON.stringify(blocks)
    .match(/"action_id":"[^"]+"/g)
    ?.map((s) => s.slice(13, -1)) ?? [];

describe('session card', () => {
  it('shows goal, status, cost against budget, rounds, elapsed, starter and controls', () => {
    const { blocks, text } = sessionCard(card);
    valid(blocks);
    const json = JSON.stringify(blocks);
    expect(json).toContain('Ship the release notes');
    expect(json).toContain('⚙️ Running');
    expect(json).toContain('$1.25 of $5.00');
    expect(json).toContain('▓▓▓░░░░░░░ 25%');
    expect(json).toContain('3m 12s');
    expect(json).toContain('<@U0ALICE>');
    expect(actionIds(blocks)).toEqual([ACTIONS.pause, ACTIONS.redirect, ACTIONS.cancel]);
    expect(json).toContain('Cancel this session?');
    expect(text).toContain('Running');
  });

  it.each([
    ['paused', [ACTIONS.resume, ACTIONS.redirect, ACTIONS.cancel]],
    ['cost_limit', [ACTIONS.raiseBudget, ACTIONS.redirect, ACTIONS.cancel]],
    ['completed', []],
    ['failed', []],
    ['unreachable', []],
    ['hibernating', [ACTIONS.pause, ACTIONS.redirect, ACTIONS.cancel]],
  ])('%s -> controls %j', (status, ids) => {
    const { blocks } = sessionCard({ ...card, status, completedAt: '2026-11-22T12:01:00.000Z' });
    valid(blocks);
    expect(actionIds(blocks)).toEqual(ids);
  });

  it('keeps a very long goal inside the header limit', () => {
    const { blocks } = sessionCard({ ...card, goal: 'g'.repeat(5000) });
    valid(blocks);
    const header = blocks.find((b) => b.type === 'header') as { text: { text: string } } | undefined;
    expect(header?.text.text).toMatch(/^g+/);
    expect(header?.text.text.length).toBeLessThanOrEqual(150);
  });

  it('carries the session id in every button', () => {
    const { blocks } = sessionCard(card);
    const values = JSON.stringify(blocks).match(/"value":"((?:[^"\\]|\\.)*)"/g) ?? [];
    expect(values.length).toBe(3);
    expect(decodeRef(JSON.parse(`{${values[0]}}`).value)).toEqual({ sessionId: 'sess_1' });
  });
});

const options = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `opt_${i}_${'x'.repeat(80)}`, label: `Option ${i}` }));

describe('prompts', () => {
  it.each([
    ['approval', request('approval'), [ACTIONS.approve, ACTIONS.reject]],
    [
      'single choice as buttons',
      request('single_select', { options: options(5) }),
      [0, 1, 2, 3, 4].map((i) => `${ACTIONS.choose}_${i}`),
    ],
    ['single choice as a select', request('single_select', { options: options(6) }), [ACTIONS.select]],
    [
      'multi choice as checkboxes',
      request('multi_select', { options: options(10), minSelections: 1, maxSelections: 2 }),
      [ACTIONS.multiChoice, ACTIONS.submitChoices],
    ],
    [
      'multi choice as a multi-select',
      request('multi_select', { options: options(11), minSelections: 1, maxSelections: 3 }),
      [ACTIONS.multiChoice, ACTIONS.submitChoices],
    ],
    ['free text', request('free_text'), [ACTIONS.answer]],
    ['multi question', request('multi_question', { questions: [] }), [ACTIONS.answer]],
  ])('%s', (_name, req, ids) => {
    const { blocks, text } = promptMessage(req, { sessionId: 'sess_1', startedBy: 'U0ALICE' });
    valid(blocks);
    expect(actionIds(blocks)).toEqual(ids);
    expect(JSON.stringify(blocks)).toContain('<@U0ALICE>');
    expect(text).toContain('Deploy v2.3.1');
  });

  it('says so when options are more than Slack can show, and keeps long prompts in limits', () => {
    const { blocks } = promptMessage(
      request('single_select', { options: options(150), prompt: 'p'.repeat(5000) }),
      {
        sessionId: 's',
        startedBy: 'U',
      },
    );
    valid(blocks);
    expect(JSON.stringify(blocks)).toContain('Only the first 100 of 150 options');
  });

  it('lists a multi-question request’s questions above its Answer button, optional ones marked', () => {
    const { blocks } = promptMessage(
      request('multi_question', {
        questions: [
          { id: 'name', prompt: 'Release <name>?', kind: 'free_text', required: true },
          { id: 'notes', prompt: 'n'.repeat(5000), kind: 'free_text', required: false },
        ],
      }),
      { sessionId: 's', startedBy: 'U' },
    );
    valid(blocks);
    const list = JSON.stringify(blocks[1]);
    expect(list).toContain('• Release &lt;name&gt;?');
    expect(list).toContain('_(optional)_');
    expect(actionIds(blocks)).toEqual([ACTIONS.answer]);
  });

  it('shows who answered what and when, without controls', () => {
    const at = new Date('2026-11-22T14:02:00Z');
    const approved = answeredPrompt(request('approval'), { approved: true }, 'U0BOB', at);
    valid(approved.blocks);
    expect(JSON.stringify(approved.blocks)).toContain(
      '✅ Approved by <@U0BOB> · <!date^1795356120^{date_short_pretty} at {time}|2026-11-22 14:02 UTC>',
    );
    expect(actionIds(approved.blocks)).toEqual([]);
    const rejected = answeredPrompt(
      request('approval'),
      { approved: false, freeText: 'too <risky>' },
      'U0BOB',
      at,
    );
    expect(JSON.stringify(rejected.blocks)).toContain(
      '❌ Rejected by <@U0BOB>: too &lt;risky&gt; · <!date^1795356120^{date_short_pretty} at {time}|2026-11-22 14:02 UTC>',
    );
    const chosen = answeredPrompt(
      request('multi_select', {
        options: [
          { id: 'eu', label: 'Europe' },
          { id: 'us', label: 'US East' },
        ],
      }),
      { choiceIds: ['eu', 'us'] },
      'U0BOB',
      at,
    );
    expect(JSON.stringify(chosen.blocks)).toContain('<@U0BOB> answered: Europe, US East');
  });

  it('keeps the agent messages its post carried ahead of the question once answered', () => {
    const carried = [
      { type: 'section' as const, text: { type: 'mrkdwn' as const, text: 'Built and tested.' } },
    ];
    const at = new Date('2026-11-22T14:02:00Z');
    const shown = promptAsAnswered({
      request: request('approval'),
      answer: { approved: true },
      answeredBy: 'U0BOB',
      answeredAt: at.toISOString(),
      carried,
    });
    valid(shown.blocks);
    expect(shown.blocks[0]).toEqual(carried[0]);
    expect(JSON.stringify(shown.blocks.slice(1))).toContain('✅ Approved by <@U0BOB>');
    // Its text keeps the carried messages' words ahead of the answer's, as the post had them.
    expect(shown.text.startsWith('Built and tested.\n\n')).toBe(true);
    expect(shown.text).toContain('Approved');
    const elsewhere = promptAsAnswered({
      request: request('approval'),
      answer: null,
      answeredBy: null,
      answeredAt: null,
      carried,
    });
    expect(elsewhere.blocks[0]).toEqual(carried[0]);
    expect(JSON.stringify(elsewhere.blocks)).toContain('Answered outside Slack');
  });

  it('offers to raise the budget at cost_limit', () => {
    const { blocks, text } = costLimitMessage('sess_1', 'U0ALICE', 0.5412);
    valid(blocks);
    expect(text).toBe('Budget reached at $0.54');
    expect(actionIds(blocks)).toEqual([ACTIONS.raiseBudget]);
  });

  it('budget prompt, once left: resumed under a new budget, or ended; no button either way', () => {
    const resumed = costLimitResolved('U0ALICE', { resumed: true, budget: 25 });
    valid(resumed.blocks);
    expect(actionIds(resumed.blocks)).toEqual([]);
    expect(resumed.text).toBe('Budget reached. ✅ The budget was raised to $25.00 and the agent continued.');
    const ended = costLimitResolved('U0ALICE', { resumed: false, status: '🛑 Cancelled' });
    valid(ended.blocks);
    expect(actionIds(ended.blocks)).toEqual([]);
    expect(ended.text).toContain('The session ended (🛑 Cancelled)');
  });
});

describe('modals and home', () => {
  const questions = request('multi_question', {
    questions: [
      { id: 'name', prompt: 'Release name?', kind: 'free_text', required: true },
      {
        id: 'channel',
        prompt: 'Channel?',
        kind: 'single_select',
        required: false,
        options: [{ id: 'beta', label: 'Beta' }],
      },
      { id: 'regions', prompt: 'Regions?', kind: 'multi_select', required: true, options: options(12) },
    ],
  });

  it.each([
    ['start', startModal('C0AGENTS')],
    ['redirect', redirectModal('sess_1')],
    ['reject', rejectModal('sess_1', 'in_1', 'p'.repeat(4000))],
    ['raise budget', raiseBudgetModal('sess_1', 0.54, 0.5)],
    ['free-text answer', answerModal('sess_1', request('free_text'))],
    ['multi-question answer', answerModal('sess_1', questions)],
  ])('%s modal passes Slack limits', (_name, view) => {
    expect(validateView(view)).toEqual([]);
    expect(JSON.parse(view.private_metadata ?? '')).toBeTypeOf('object');
    // Slack marks optional inputs itself; a label saying so too would read "(optional) (optional)".
    for (const block of view.blocks as Array<{ type: string; label?: { text: string } }>)
      if (block.type === 'input') expect(block.label?.text).not.toMatch(/optional/i);
  });

  it('puts one input per question, required ones required', () => {
    const view = answerModal('sess_1', questions);
    const inputs = view.blocks.filter((b) => (b as { type: string }).type === 'input') as Array<{
      block_id: string;
      optional: boolean;
    }>;
    expect(inputs.map((b) => [b.block_id, b.optional])).toEqual([
      ['q_0', false],
      ['q_1', true],
      ['q_2', false],
    ]);
  });

  it('lists a person’s sessions on App Home within Slack’s block limit', () => {
    const sessions = Array.from({ length: 60 }, (_, i) => ({
      sessionId: `s${i}`,
      channelId: 'C0AGENTS',
      cardTs: null,
      startedBy: 'U0ALICE',
      goal: `Goal ${i}`,
      status: 'running',
      budget: null,
      finished: false,
      createdAt: '2026-11-22T12:00:00.000Z',
    }));
    expect(validateView(homeView(sessions))).toEqual([]);
    expect(JSON.stringify(homeView(sessions))).toContain('and 15 older sessions');
    expect(validateView(homeView([]))).toEqual([]);
  });
});

describe('splitText', () => {
  it('drops nothing and keeps every part within the limit (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 5000 }), fc.integer({ min: 1, max: 400 }), (text, max) => {
        const parts = splitText(text, max);
        expect(parts.join('')).toBe(text);
        for (const part of parts) expect(part.length).toBeLessThanOrEqual(max);
      }),
    );
  });

  it('prefers paragraph boundaries', () => {
    expect(splitText('aaaa\n\nbbbb', 8)).toEqual(['aaaa\n\n', 'bbbb']);
  });
});
