import { randomBytes } from 'node:crypto';
import type { AgentSessionsClient } from '@agent-sessions/core';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.js';
import { KeyCipher } from '../../../src/services/keys/cipher.js';
import { NO_KEY_HERE, ServiceKeys } from '../../../src/services/keys/service-keys.js';
import type { ServiceKeyRepository, StoredServiceKey } from '../../../src/store/service-keys.js';

const logger = createLogger({ secrets: [], level: 'silent' });

/** The rows the lending rule reads: a slot's key, or none. */
function keysRepo(): ServiceKeyRepository & { rows: Map<string, StoredServiceKey> } {
  const rows = new Map<string, StoredServiceKey>();
  return {
    rows,
    get: async (ref) => rows.get(ref),
    put: async (k) => {
      rows.set(k.ref, { ...k, linkedAt: new Date().toISOString() });
    },
    delete: async () => false,
    encryptedWithOther: async () => [],
    reencrypt: async () => false,
    refOf: async () => undefined,
    noticeOnce: async () => true,
    noticed: async () => false,
  };
}

const clientNamed = (name: string) => ({ name }) as unknown as AgentSessionsClient;

function keysLentTo(lent: boolean | undefined) {
  const operator = clientNamed('AGENT_API_KEY');
  const keys = new ServiceKeys({
    repo: keysRepo(),
    cipher: new KeyCipher(randomBytes(32)),
    mode: 'per-workspace',
    serviceUrl: 'http://127.0.0.1:9',
    defaultClient: operator,
    ...(lent === undefined ? {} : { defaultLent: () => lent }),
    homeTeam: async () => 'T0NORTH',
    logger,
    cacheMs: 0,
    newClient: (apiKey) => clientNamed(apiKey),
  });
  return { keys, operator };
}

describe("the operator's key, lent per workspace", () => {
  it('a workspace it is not lent to, with no key of its own, starts nothing and is told how to link one', async () => {
    const { keys } = keysLentTo(false);
    const start = await keys.forStart('U0DANA');
    expect(start).toEqual({ ok: false, message: NO_KEY_HERE });
    expect(NO_KEY_HERE).toContain('nothing was started');
    expect(NO_KEY_HERE).toContain('*Link a key*');
  });

  it('where it is lent (or with one bot token) a workspace with no key starts on it', async () => {
    for (const lent of [true, undefined]) {
      const { keys, operator } = keysLentTo(lent);
      expect(await keys.forStart('U0DANA')).toEqual({ ok: true, ref: undefined, client: operator });
    }
  });

  it("a workspace's own linked key serves it whether or not the operator's is lent", async () => {
    const { keys } = keysLentTo(false);
    await keys.link({
      ref: 'team:T0NORTH',
      teamId: 'T0NORTH',
      userId: null,
      apiKey: 'north-key',
      by: 'U0ERIN',
    });
    const start = await keys.forStart('U0DANA');
    expect(start.ok && start.ref).toBe('team:T0NORTH');
    expect(start.ok && (start.client as unknown as { name: string }).name).toBe('north-key');
  });
});
