import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseHumanInput, parseHumanInputDetailed } from '../../src/index.js';

const regions = {
  inputId: 'in_7f3a',
  kind: 'multi_select',
  prompt: 'Which regions should I deploy to?',
  options: [
    { id: 'eu', label: 'Europe', description: 'Frankfurt' },
    { id: 'us', label: 'US East' },
  ],
  minSelections: 1,
  maxSelections: 2,
};
const twoQuestions = {
  inputId: 'in_8b21',
  kind: 'multi_question',
  prompt: 'Two details before I publish',
  questions: [
    { id: 'name', prompt: 'Release name?', kind: 'free_text', required: true },
    {
      id: 'channel',
      prompt: 'Channel?',
      kind: 'single_select',
      options: [
        { id: 'stable', label: 'Stable' },
        { id: 'beta', label: 'Beta' },
      ],
    },
  ],
};

const asMessage = (request: unknown) => ({
  roundId: 'r1',
  role: 'assistant',
  name: 'human_input_needed',
  content: JSON.stringify(request),
});
const asToolCall = (request: unknown) => ({
  roundId: 'r1',
  role: 'assistant',
  content: '',
  toolCalls: [
    {
      id: 'c1',
      type: 'function',
      function: { name: 'human_input_needed', arguments: JSON.stringify(request) },
    },
  ],
});
const asRound = (request: object) => ({ roundId: 'r1', humanInput: { ...request, status: 'pending' } });

describe('the examples of docs/contract-decisions.md', () => {
  it('normalizes the multi_select example', () => {
    const r = parseHumanInput(asMessage(regions));
    expect(r).toMatchObject({
      inputId: 'in_7f3a',
      kind: 'multi_select',
      prompt: 'Which regions should I deploy to?',
      options: regions.options,
      minSelections: 1,
      maxSelections: 2,
    });
  });

  it('normalizes the multi_question example', () => {
    const r = parseHumanInput(asMessage(twoQuestions));
    expect(r?.kind).toBe('multi_question');
    expect(r?.questions).toEqual([
      { id: 'name', prompt: 'Release name?', kind: 'free_text', required: true },
      {
        id: 'channel',
        prompt: 'Channel?',
        kind: 'single_select',
        required: false,
        options: twoQuestions.questions[1]?.options,
      },
    ]);
  });
});

describe('wire shapes', () => {
  it.each([
    ['a message with JSON content', asMessage(regions)],
    [
      'a message whose content is already an object',
      { roundId: 'r', name: 'human_input_needed', content: regions },
    ],
    ['an OpenAI-style tool call', asToolCall(regions)],
    [
      'snake_case tool_calls with args on the call',
      { tool_calls: [{ name: 'human_input_needed', args: regions }] },
    ],
    ['a pending request on a round', asRound(regions)],
    ['a round with pendingInput', { roundId: 'r', pendingInput: regions }],
    ['an event-typed message', { type: 'human_input_needed', data: regions }],
  ])('%s', (_name, source) => {
    const r = parseHumanInput(source);
    expect(r?.inputId).toBe('in_7f3a');
    expect(r?.kind).toBe('multi_select');
    expect(r?.options?.map((o) => o.id)).toEqual(['eu', 'us']);
  });

  it('ignores messages that are not human input', () => {
    expect(parseHumanInputDetailed({ roundId: 'r', role: 'assistant', content: 'hello' })).toBeUndefined();
    expect(
      parseHumanInputDetailed({ roundId: 'r', role: 'tool', name: 'search_docs', content: '{}' }),
    ).toBeUndefined();
    expect(parseHumanInputDetailed('text')).toBeUndefined();
  });

  it('treats a responded request on a round as not pending', () => {
    expect(parseHumanInput({ humanInput: { ...regions, status: 'responded' } })).toBeUndefined();
  });
});

describe('variants and inference', () => {
  it.each([
    [{ id: 'a', type: 'confirm', question: 'Go?' }, 'approval'],
    [{ input_id: 'a', kind: 'yes_no', message: 'Go?' }, 'approval'],
    [{ inputId: 'a', kind: 'radio', choices: ['x', 'y'] }, 'single_select'],
    [{ inputId: 'a', kind: 'checkboxes', choices: [{ value: 'x', title: 'X' }] }, 'multi_select'],
    [{ inputId: 'a', options: ['x', 'y'] }, 'single_select'],
    [{ inputId: 'a', options: ['x', 'y'], multiSelect: true }, 'multi_select'],
    [{ inputId: 'a', options: ['x', 'y', 'z'], max: 2 }, 'multi_select'],
    [{ inputId: 'a', questions: [{ question: 'Name?' }] }, 'multi_question'],
    [{ inputId: 'a', kind: 'telepathy', prompt: '?' }, 'free_text'],
    [{ inputId: 'a', kind: 'single_select', prompt: 'nothing to pick' }, 'free_text'],
    [{ requestId: 42, text: 'Say something' }, 'free_text'],
  ])('%j -> %s', (payload, kind) => {
    const r = parseHumanInput(asMessage(payload));
    expect(r?.kind).toBe(kind);
    expect(typeof r?.inputId).toBe('string');
  });

  it('normalizes option variants and keeps the raw request', () => {
    const r = parseHumanInput(
      asMessage({ id: 'q', choices: [{ key: 'k1', text: 'First', hint: 'h' }, 'second'] }),
    );
    expect(r?.options).toEqual([
      { id: 'k1', label: 'First', description: 'h' },
      { id: 'second', label: 'second' },
    ]);
    expect(r?.raw).toMatchObject({ name: 'human_input_needed' });
  });

  it('clamps selection bounds to the options', () => {
    const r = parseHumanInput(
      asMessage({ inputId: 'a', kind: 'multi_select', options: ['x', 'y'], min: 5, max: 9 }),
    );
    expect(r).toMatchObject({ minSelections: 2, maxSelections: 2 });
  });

  it('gives a readable prompt when none was sent', () => {
    expect(parseHumanInput(asMessage({ inputId: 'a' }))?.prompt).toBe('The agent needs your input');
  });
});

describe('requests that cannot be answered are reported, never dropped', () => {
  it('reports a missing inputId', () => {
    const r = parseHumanInputDetailed(asMessage({ kind: 'approval', prompt: 'Go?' }));
    expect(r).toMatchObject({ ok: false, reason: 'missing_input_id', source: 'message' });
    expect(parseHumanInput(asMessage({ kind: 'approval' }))).toBeUndefined();
  });

  it('reports content that is not JSON', () => {
    const r = parseHumanInputDetailed({ name: 'human_input_needed', content: '{oops' });
    expect(r).toMatchObject({ ok: false, reason: 'invalid_json' });
  });

  it('reports a payload that is not an object', () => {
    expect(parseHumanInputDetailed({ name: 'human_input_needed', content: '[1,2]' })).toMatchObject({
      ok: false,
      reason: 'not_an_object',
    });
  });
});

describe('properties', () => {
  const option = fc.record({
    id: fc.string({ minLength: 1, maxLength: 8 }),
    label: fc.string({ minLength: 1, maxLength: 20 }),
  });
  const request = fc.record({
    inputId: fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim() !== ''),
    kind: fc.constantFrom('approval', 'single_select', 'multi_select', 'free_text'),
    prompt: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== ''),
    options: fc
      .uniqueArray(option, { minLength: 1, maxLength: 6, selector: (o) => o.id.trim() })
      .filter((os) => os.every((o) => o.id.trim() !== '' && o.label.trim() !== '')),
  });

  it('every wire shape of the same request normalizes to the same thing', () => {
    fc.assert(
      fc.property(request, (r) => {
        const shapes = [asMessage(r), asToolCall(r), asRound(r)].map((s) => {
          const { raw: _raw, ...rest } = parseHumanInput(s) ?? { raw: undefined };
          return rest;
        });
        expect(shapes[1]).toEqual(shapes[0]);
        expect(shapes[2]).toEqual(shapes[0]);
        expect(shapes[0]).toMatchObject({ inputId: r.inputId, kind: r.kind });
      }),
    );
  });
});
