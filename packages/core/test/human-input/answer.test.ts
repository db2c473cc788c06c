import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  approval,
  multiQuestion as form,
  multiSelect as multi,
  singleSelect as single,
  freeText as text,
} from '../../../../test/support/questions.js';
import {
  buildAnswer,
  describeAnswer,
  HumanInputAnswerError,
  type HumanInputRequest,
  MAX_FREE_TEXT_LENGTH,
  validateAnswer,
} from '../../src/index.js';

function issuesOf(request: HumanInputRequest, input: object) {
  const result = validateAnswer(request, input);
  expect(result.ok).toBe(false);
  return result.ok ? [] : result.issues;
}

describe('buildAnswer', () => {
  it('builds each kind of answer, free text as typed (never trimmed)', () => {
    expect(buildAnswer(approval, { approved: false, reason: '  too risky ' })).toEqual({
      approved: false,
      freeText: '  too risky ',
    });
    expect(buildAnswer(single, { choiceId: 'production' })).toEqual({ choiceId: 'production' });
    expect(buildAnswer(multi, { choiceIds: ['eu', 'us'] })).toEqual({ choiceIds: ['eu', 'us'] });
    expect(buildAnswer(text, { freeText: ' Aurora\n\n- north ' })).toEqual({
      freeText: ' Aurora\n\n- north ',
    });
    expect(buildAnswer(form, { answers: { name: 'Aurora', targets: ['web'] } })).toEqual({
      answers: { name: 'Aurora', targets: ['web'] },
    });
  });

  it.each([
    [approval, {}, 'approved', 'required'],
    [single, { choiceId: 'moon' }, 'choiceId', 'not_an_option'],
    [single, {}, 'choiceId', 'required'],
    [multi, { choiceIds: [] }, 'choiceIds', 'too_few'],
    [multi, { choiceIds: ['eu', 'us', 'ap'] }, 'choiceIds', 'too_many'],
    [multi, { choiceIds: ['eu', 'eu'] }, 'choiceIds', 'duplicate'],
    [multi, { choiceIds: ['mars'] }, 'choiceIds', 'not_an_option'],
    [text, { freeText: '   ' }, 'freeText', 'empty'],
    [text, {}, 'freeText', 'required'],
    [text, { freeText: 'x'.repeat(MAX_FREE_TEXT_LENGTH + 1) }, 'freeText', 'too_long'],
    [form, { answers: {} }, 'answers.name', 'required'],
    [form, { answers: { name: 'A', channel: 'nightly' } }, 'answers.channel', 'not_an_option'],
    [form, { answers: { name: 'A', colour: 'red' } }, 'answers.colour', 'unknown_question'],
  ])('%#: refuses naming %s', (request, input, field, rule) => {
    const issues = issuesOf(request, input);
    expect(issues).toContainEqual(expect.objectContaining({ field, rule }));
    expect(() => buildAnswer(request, input)).toThrow(HumanInputAnswerError);
  });

  it('writes messages for people, naming the question', () => {
    expect(issuesOf(multi, { choiceIds: ['eu', 'us', 'ap'] })[0]?.message).toBe('Choose at most 2 options');
    expect(issuesOf(form, { answers: {} })[0]?.message).toBe('Release name?: Please type an answer');
  });

  it('accepts any valid selection and refuses any option not offered (property)', () => {
    fc.assert(
      fc.property(
        fc.subarray(['eu', 'us', 'ap'], { minLength: 1, maxLength: 2 }),
        fc.string(),
        (ids, stranger) => {
          expect(validateAnswer(multi, { choiceIds: ids }).ok).toBe(true);
          if (!['eu', 'us', 'ap'].includes(stranger)) {
            const result = validateAnswer(multi, { choiceIds: [stranger] });
            expect(result.ok).toBe(false);
            if (!result.ok) expect(result.issues[0]?.field).toBe('choiceIds');
          }
        },
      ),
    );
  });
});

describe('describeAnswer', () => {
  it('renders answers as people read them', () => {
    expect(describeAnswer(approval, { approved: true })).toBe('Approved');
    expect(describeAnswer(approval, { approved: false, freeText: 'too risky' })).toBe('Rejected: too risky');
    expect(describeAnswer(single, { choiceId: 'production' })).toBe('Production');
    expect(describeAnswer(multi, { choiceIds: ['eu', 'us'] })).toBe('Europe, US East');
    expect(describeAnswer(text, { freeText: 'Aurora' })).toBe('Aurora');
    expect(describeAnswer(form, { answers: { name: 'Aurora', channel: 'beta' } })).toBe(
      'Release name? Aurora · Channel? Beta',
    );
  });
});
