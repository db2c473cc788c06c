/**
 * A JSON object typed by a person (the start form's and the channel defaults' context, a workflow step's
 * input), or what is wrong with it in plain words: JSON.parse's own message ("Expected property name or
 * '}' in JSON at position 1") names a position, not the mistake.
 */

const EXAMPLE = '{"repo": "acme/api"}';

export type ParsedObject = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

/** `field`: how the message names what was typed ("The context"). */
export function parseObject(text: string, field = 'The context'): ParsedObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `${field} ${jsonMistake(text, error)}` };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { ok: false, error: `${field} must be a JSON object, like ${EXAMPLE}` };
  }
  return { ok: true, value: Object.fromEntries(Object.entries(parsed)) };
}

/** The likeliest mistake in text JSON.parse refused, as the rest of a sentence. */
function jsonMistake(text: string, error: unknown): string {
  const trimmed = text.trim();
  const message = error instanceof Error ? error.message : '';
  const at = /position (\d+)/.exec(message);
  const position = at ? Number(at[1]) : undefined;
  if (!trimmed.startsWith('{') && !trimmed.startsWith('['))
    return `must be a JSON object in braces, like ${EXAMPLE}`;
  if (/'[^']*'\s*:/.test(trimmed) || /:\s*'[^']*'/.test(trimmed))
    return `uses single quotes: JSON needs double quotes around names and text, like ${EXAMPLE}`;
  if (/[{,]\s*[A-Za-z_$][\w$-]*\s*:/.test(trimmed))
    return `has a name without double quotes: write each name in double quotes, like ${EXAMPLE}`;
  if (/,\s*[}\]]/.test(trimmed)) return 'has a comma just before a closing } or ]: remove that comma';
  if (/unexpected end|unterminated|end of (json|data)/i.test(message) || position === trimmed.length)
    return 'stops before it is complete: a value, a closing quote or a closing } is missing';
  const token = /Unexpected token '(.+?)'/.exec(message)?.[1];
  if (position === undefined)
    return token
      ? `is not valid JSON: “${token}” is where a value should be (text goes in double quotes), like ${EXAMPLE}`
      : `is not valid JSON: write an object like ${EXAMPLE}`;
  const near = text.slice(Math.max(0, position - 10), position + 10).replace(/\s+/g, ' ');
  return `is not valid JSON at character ${position + 1} (near “${near}”): write an object like ${EXAMPLE}`;
}
