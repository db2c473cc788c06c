import type { CallToolResult } from '@modelcontextprotocol/server';

/** A tool's answer: its structured content, and the same as JSON text for hosts that read only text. */
export function done<T extends Record<string, unknown>>(structured: T, said?: string): CallToolResult {
  const json = JSON.stringify(structured, null, 2);
  return {
    content: [{ type: 'text', text: said ? `${said}\n${json}` : json }],
    structuredContent: structured,
  };
}

/**
 * A refusal the model reads (not a protocol error): which field, by which rule, in a sentence. `field`
 * is the tool's input field; absent when the refusal is about the session or the person, not an input.
 */
export function refused(message: string, field?: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: field ? `${field}: ${message}` : message }] };
}
