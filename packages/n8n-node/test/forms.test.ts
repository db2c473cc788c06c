import { describeProblems, type HumanInputRequest, validateAnswer } from '@agent-sessions/core/pure-without-zod';
import { describe, expect, it } from 'vitest';
import { fromFormResponse, issuesByLabel, toFormFields } from '../nodes/AgentSessions/helpers/forms';
import { approval, freeText, multiQuestion, multiSelect as multi, singleSelect as single } from '../../../test/support/questions';

/** The answer a form reply becomes, after core's check (as Respond sends it). */
const answerOf = (request: HumanInputRequest, response: unknown) => {
  const mapped = fromFormResponse(request, response);
  if (!mapped.ok) throw new Error(describeProblems(mapped.issues));
  const checked = validateAnswer(request, mapped.input);
  if (!checked.ok) throw new Error(describeProblems(issuesByLabel(request, checked.issues)));
  return checked.answer;
};

const issuesOf = (request: HumanInputRequest, response: unknown) => {
  const mapped = fromFormResponse(request, response);
  expect(mapped.ok).toBe(false);
  return mapped.ok ? [] : mapped.issues;
};

describe('toFormFields: the question in the JSON shape n8n forms accept', () => {
  it('approval: a required Approve / Reject dropdown and an optional reason', () => {
    expect(toFormFields(approval)).toEqual([
      {
        fieldLabel: 'Deploy v2.3.1?',
        fieldType: 'dropdown',
        requiredField: true,
        fieldOptions: { values: [{ option: 'Approve' }, { option: 'Reject' }] },
      },
      { fieldLabel: 'Reason', fieldType: 'textarea', requiredField: false, placeholder: 'Optional' },
    ]);
  });

  it('single choice: a required dropdown of the option labels', () => {
    expect(toFormFields(single)).toEqual([
      {
        fieldLabel: 'Which environment?',
        fieldType: 'dropdown',
        requiredField: true,
        fieldOptions: { values: [{ option: 'Staging' }, { option: 'Production' }, { option: 'Canary (5% of traffic)' }] },
      },
    ]);
  });

  it('multi choice: checkboxes limited to the question’s range', () => {
    expect(toFormFields(multi)).toEqual([
      {
        fieldLabel: 'Which regions?',
        fieldType: 'checkbox',
        requiredField: true,
        fieldOptions: { values: [{ option: 'Europe' }, { option: 'US East' }, { option: 'Asia Pacific' }] },
        limitSelection: 'range',
        minSelections: 1,
        maxSelections: 2,
      },
    ]);
  });

  it('free text: a required textarea', () => {
    expect(toFormFields(freeText)).toEqual([{ fieldLabel: 'Release name?', fieldType: 'textarea', requiredField: true }]);
  });

  it('multi-question: one field per question, each required as the question says', () => {
    expect(toFormFields(multiQuestion)).toEqual([
      { fieldLabel: 'Release name?', fieldType: 'textarea', requiredField: true },
      {
        fieldLabel: 'Channel?',
        fieldType: 'dropdown',
        requiredField: false,
        fieldOptions: { values: [{ option: 'Stable' }, { option: 'Beta' }] },
      },
      {
        fieldLabel: 'Targets?',
        fieldType: 'checkbox',
        requiredField: true,
        fieldOptions: { values: [{ option: 'Web' }, { option: 'iOS' }] },
        limitSelection: 'range',
        minSelections: 1,
        maxSelections: 2,
      },
    ]);
  });

  it('keeps labels unique: the form’s reply is keyed by label', () => {
    const twins: HumanInputRequest = {
      inputId: 'in_6',
      kind: 'multi_question',
      prompt: 'Twins',
      questions: [
        { id: 'a', prompt: 'Name?', kind: 'free_text', required: true },
        { id: 'b', prompt: 'Name?', kind: 'free_text', required: true },
        {
          id: 'c',
          prompt: 'Pick',
          kind: 'single_select',
          required: true,
          options: [
            { id: 'x', label: 'Same' },
            { id: 'y', label: 'Same ' },
          ],
        },
      ],
      raw: {},
    };
    const fields = toFormFields(twins);
    expect(fields.map((f) => f.fieldLabel)).toEqual(['Name?', 'Name? (2)', 'Pick']);
    expect(fields[2]?.fieldOptions?.values).toEqual([{ option: 'Same' }, { option: 'Same (y)' }]);
    expect(answerOf(twins, { 'Name?': 'one', 'Name? (2)': 'two', Pick: 'Same (y)' })).toEqual({
      answers: { a: 'one', b: 'two', c: 'y' },
    });
  });

  it('uses only keys n8n’s JSON form parser allows', () => {
    const allowed = new Set(['fieldLabel', 'fieldType', 'requiredField', 'fieldOptions', 'placeholder', 'limitSelection', 'minSelections', 'maxSelections']);
    for (const request of [approval, single, multi, freeText, multiQuestion]) {
      for (const field of toFormFields(request)) for (const key of Object.keys(field)) expect(allowed.has(key), key).toBe(true);
    }
  });
});

describe('fromFormResponse: a submitted form back to the answer', () => {
  it('approval: Approve / Reject and the reason', () => {
    expect(answerOf(approval, { 'Deploy v2.3.1?': 'Approve', Reason: '', submittedAt: 'x', formMode: 'production' })).toEqual({
      approved: true,
    });
    expect(answerOf(approval, { 'Deploy v2.3.1?': 'Reject', Reason: 'Friday freeze' })).toEqual({
      approved: false,
      freeText: 'Friday freeze',
    });
  });

  it('single choice: the label becomes the option id', () => {
    expect(answerOf(single, { 'Which environment?': 'Canary (5% of traffic)' })).toEqual({ choiceId: 'canary' });
  });

  it('multi choice: the labels (an array, or the JSON text of one) become option ids', () => {
    expect(answerOf(multi, { 'Which regions?': ['Europe', 'Asia Pacific'] })).toEqual({ choiceIds: ['eu', 'ap'] });
    expect(answerOf(multi, { 'Which regions?': '["US East"]' })).toEqual({ choiceIds: ['us'] });
  });

  it('free text', () => {
    expect(answerOf(freeText, { 'Release name?': 'Aurora' })).toEqual({ freeText: 'Aurora' });
  });

  it('multi-question: one answer per question, optional ones left out', () => {
    expect(answerOf(multiQuestion, { 'Release name?': 'Aurora', 'Channel?': 'Beta', 'Targets?': ['Web', 'iOS'] })).toEqual({
      answers: { name: 'Aurora', channel: 'beta', targets: ['web', 'ios'] },
    });
    expect(answerOf(multiQuestion, { 'Release name?': 'Aurora', 'Channel?': null, 'Targets?': ['iOS'] })).toEqual({
      answers: { name: 'Aurora', targets: ['ios'] },
    });
  });

  it('reads a Send-and-Wait reply, whose fields come under "data"', () => {
    expect(answerOf(single, { data: { 'Which environment?': 'Staging' } })).toEqual({ choiceId: 'staging' });
  });

  it('reads labels as n8n hands them back from a JSON-defined form (< and > escaped, checkbox values trimmed)', () => {
    const angled: HumanInputRequest = {
      inputId: 'in_7',
      kind: 'multi_select',
      prompt: 'Pick <one or two>',
      options: [
        { id: 'lt', label: 'a < b' },
        { id: 'gt', label: 'a > b' },
      ],
      raw: {},
    };
    expect(answerOf(angled, { 'Pick &lt;one or two&gt;': ['a &lt; b', ' a &gt; b '] })).toEqual({ choiceIds: ['lt', 'gt'] });
  });

  it('a label that is not an option: a clear error naming the field and listing the options', () => {
    expect(issuesOf(single, { 'Which environment?': 'Mars' })).toEqual([
      {
        field: 'Field "Which environment?"',
        rule: 'not_an_option',
        message: '"Mars" is not one of the options (Staging, Production, Canary (5% of traffic))',
      },
    ]);
    expect(issuesOf(approval, { 'Deploy v2.3.1?': 'Maybe' })[0]).toMatchObject({
      field: 'Field "Deploy v2.3.1?"',
      message: '"Maybe" is not one of the options (Approve, Reject)',
    });
    expect(issuesOf(multi, { 'Which regions?': ['Europe', 'Moon'] })[0]).toMatchObject({
      field: 'Field "Which regions?"',
      message: '"Moon" is not one of the options (Europe, US East, Asia Pacific)',
    });
    // An option id is not its label: the form only ever sends labels.
    expect(issuesOf(single, { 'Which environment?': 'staging' })[0]?.rule).toBe('not_an_option');
  });

  it('a missing or empty required field names it; an item that is not a form reply says so', () => {
    expect(issuesOf(freeText, { other: 'x' })).toEqual([
      { field: 'Field "Release name?"', rule: 'required', message: 'The form response has no field "Release name?"' },
    ]);
    expect(issuesOf(multiQuestion, { 'Release name?': '  ', 'Targets?': [] }).map((i) => i.field)).toEqual([
      'Field "Release name?"',
      'Field "Targets?"',
    ]);
    expect(issuesOf(single, 'Staging')[0]?.message).toMatch(/Expected the item a form returned/);
  });

  it('core’s checks still apply, named by the form field (too many choices)', () => {
    expect(() => answerOf(multi, { 'Which regions?': ['Europe', 'US East', 'Asia Pacific'] })).toThrow(
      'Field "Which regions?": Choose at most 2 options',
    );
  });
});
