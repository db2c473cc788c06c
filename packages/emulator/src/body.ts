import type { Context } from 'hono';
import { badRequest } from './errors.js';

/** Reads a JSON object body; malformed JSON or a non-object is a 400 that says which. */
export async function jsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') throw badRequest('request body is required and must be a JSON object');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw badRequest(`malformed JSON body: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest('request body must be a JSON object');
  }
  return value;
}
