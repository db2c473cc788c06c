import { createApp } from '../src/app.js';
import { parseQuirks } from '../src/quirks.js';
import { createEmulator, type EmulatorOptions } from '../src/server.js';

export const KEY = 'k_one';
export type Json = Record<string, unknown>;

/**
 * The app over real HTTP requests (no port), a manual clock, and the quirks named. Requests carry `KEY`
 * unless `call` is given another key, or null for none; a string body is sent as it is (malformed JSON).
 */
export function inProcessEmulator(quirks: string, options: EmulatorOptions = {}) {
  const deps = createEmulator({
    apiKeys: [KEY],
    clock: 'manual',
    seed: 1,
    quirks: parseQuirks(quirks),
    ...options,
  });
  const app = createApp(deps);
  const call = async (method: string, path: string, body?: unknown, key: string | null = KEY) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (key) headers.authorization = `Bearer ${key}`;
    const res = await app.request(path, {
      method,
      headers,
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Json, headers: res.headers };
  };
  return { app, deps, call };
}
