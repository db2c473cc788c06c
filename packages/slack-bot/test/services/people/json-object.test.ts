import { describe, expect, it } from 'vitest';
import { parseObject } from '../../../src/services/people/json-object.js';

const errorOf = (text: string) => {
  const parsed = parseObject(text);
  if (parsed.ok) throw new Error(`${text} was read`);
  return parsed.error;
};

describe('a JSON object typed in a form', () => {
  it('reads an object', () => {
    expect(parseObject('{"repo": "acme/api"}')).toEqual({ ok: true, value: { repo: 'acme/api' } });
  });

  it.each([
    ['{repo: "acme/api"}', 'The context has a name without double quotes'],
    ["{'repo': 'acme/api'}", 'The context uses single quotes: JSON needs double quotes'],
    ['{"repo": "acme/api",}', 'The context has a comma just before a closing } or ]: remove that comma'],
    ['{"repo": ', 'The context stops before it is complete'],
    ['{"repo": "acme/api"', 'The context stops before it is complete'],
    ['repo=acme/api', 'The context must be a JSON object in braces'],
    [
      '{"repo": acme}',
      'The context is not valid JSON: “a” is where a value should be (text goes in double quotes)',
    ],
    ['{"repo": "a" "b"}', 'The context is not valid JSON at character 14 (near “epo": "a" "b"}”)'],
    ['[1, 2]', 'The context must be a JSON object, like {"repo": "acme/api"}'],
  ])('%s: says what is wrong in plain words, naming the field', (text, said) => {
    const error = errorOf(text);
    expect(error).toContain(said);
    // Never the parser's own words.
    expect(error).not.toMatch(/Expected property name|Unexpected token|in JSON at position/);
  });

  it('names the field it is given', () => {
    expect(parseObject('{a: 1}', 'The default context')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^The default context has a name without double quotes/),
    });
  });
});
