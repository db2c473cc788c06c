import { randomBytes } from 'node:crypto';
import type { AgentSessionsClient } from '@agent-sessions/core';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.js';
import { KeyCipher } from '../../../src/services/keys/cipher.js';
import { NO_KEY_HERE, ServiceKeys } from '../../../src/services/keys/service-keys.js';
import { keysRepo } from './memory-key-rows.js';

const logger = createLogger({ secrets: [], level: 'silent' });

const clientNamed = (name: string) => ({ name }) as unknown as AgentSessionsClient;

function keysLentTo(lent: boolean | undefined, mode: 'per-workspace' | 'per-person' = 'per-workspace') {
  const operator = clientNamed('AGENT_API_KEY');
  const keys = new ServiceKeys({
    repo: keysRepo(),
    cipher: new KeyCipher(randomBytes(32)),
    mode,
    serviceUrl: 'http://127.0.0.1:9',
    defaultClient: operator,
    ...(lent === undefined ? {} : { defaultLent: () => lent }),
    ownTeam: async () => 'T0NORTH',
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

  it('a start nobody made as a person (a workflow nobody ran) goes with the workspace’s key, never a person’s', async () => {
    const { keys, operator } = keysLentTo(true, 'per-person');
    await keys.link({
      ref: 'person:T0NORTH:U0DANA',
      teamId: 'T0NORTH',
      userId: 'U0DANA',
      apiKey: 'dana-key',
      by: 'U0DANA',
    });
    expect(await keys.forWorkspace()).toEqual({ ok: true, ref: undefined, client: operator });
    await keys.link({
      ref: 'team:T0NORTH',
      teamId: 'T0NORTH',
      userId: null,
      apiKey: 'north-key',
      by: 'U0ERIN',
    });
    const start = await keys.forWorkspace();
    expect(start.ok && (start.client as unknown as { name: string }).name).toBe('north-key');
    expect((await keysLentTo(false).keys.forWorkspace()).ok).toBe(false);
  });
});
