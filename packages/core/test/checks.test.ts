import { describe, expect, it } from 'vitest';
import {
  checkBudget,
  checkEmail,
  checkId,
  checkRedirect,
  checkStartInput,
  describeProblems,
} from '../src/pure.js';

// The callers' friendly checks: what the client sends as typed, the bot and the node refuse with these.
describe('checkStartInput', () => {
  it('accepts a goal as typed, with a budget and iterations', () => {
    expect(checkStartInput({ goal: '  ship it\n', budget: 2.5, maxIterations: 1 })).toEqual([]);
  });

  it.each([
    [{ goal: '   ' }, 'goal', /goal is empty/],
    [{ goal: undefined }, 'goal', /goal is empty/],
    [{ goal: 'g', budget: 0 }, 'budget', /positive number of USD/],
    [{ goal: 'g', budget: -3 }, 'budget', /got -3/],
    [{ goal: 'g', budget: Number.NaN }, 'budget', /positive/],
    [{ goal: 'g', maxIterations: 0 }, 'maxIterations', /whole number of 1 or more/],
    [{ goal: 'g', maxIterations: 2.5 }, 'maxIterations', /got 2.5/],
  ])('refuses %j naming %s', (input, field, message) => {
    const problems = checkStartInput(input);
    expect(problems.map((p) => p.field)).toEqual([field]);
    expect(problems[0]?.message).toMatch(message);
  });

  it('reports every problem at once', () => {
    const problems = checkStartInput({ goal: '', budget: 0, maxIterations: 0 });
    expect(problems.map((p) => p.field)).toEqual(['goal', 'budget', 'maxIterations']);
    expect(describeProblems(problems)).toMatch(/^goal: .*; budget: .*; maxIterations: /);
  });
});

describe('the other checks', () => {
  it('a new budget must exceed the spend when it is known', () => {
    expect(checkBudget(5, 'newBudget', 4.99)).toEqual([]);
    expect(checkBudget(5, 'newBudget', 5)[0]?.message).toMatch(/more than the \$5\.00 already spent/);
  });

  it('a redirect needs a direction that says something', () => {
    expect(checkRedirect('go north')).toEqual([]);
    expect(checkRedirect(' \n ')[0]?.field).toBe('message');
  });

  it.each([
    ['', /is empty/],
    ['sess 1', /spaces or line breaks/],
    ['sess_1\n', /spaces or line breaks/],
    ['a/b', /not an id/],
    ['..', /not an id/],
  ])('refuses the id %j', (id, message) => {
    expect(checkId(id)[0]?.message).toMatch(message);
  });

  it('accepts an ordinary id and shows a long one shortened in its message', () => {
    expect(checkId('sess_01HZX')).toEqual([]);
    expect(checkId(`${'x'.repeat(60)} y`, 'inputId')[0]?.message).toMatch(/^The input id "x{40}…" contains/);
  });

  it.each([
    ['ada@example.com', 0],
    ['ada@example', 1],
    ['ada example.com', 1],
    ['', 1],
  ])('checks the email %j', (email, count) => {
    expect(checkEmail(email)).toHaveLength(count);
  });
});
