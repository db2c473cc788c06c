import { randomBytes } from 'node:crypto';
import type { AgentSessionsClient } from '@agent-sessions/core';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.js';
import { KeyCipher } from '../../../src/services/keys/cipher.js';
import { NO_KEY_SLOT } from '../../../src/services/keys/key-errors.js';
import { KeyLinking } from '../../../src/services/keys/key-linking.js';
import { ServiceKeys } from '../../../src/services/keys/service-keys.js';
import { keysRepo } from './memory-key-rows.js';

// Under an organisation-wide install some payloads carry no team id. A key slot is a workspace's: with
// no workspace named, there is no slot, and none is guessed — a shared `team:unknown` slot would let the
// organisation's tenants start on, link or remove each other's key.

const logger = createLogger({ secrets: [], level: 'silent' });

/** OAuth installs: the current request's workspace is `current` (undefined: the payload named none). */
function oauthKeys(current: string | undefined) {
  const repo = keysRepo();
  const cipher = new KeyCipher(randomBytes(32));
  const keys = new ServiceKeys({
    repo,
    cipher,
    mode: 'per-workspace',
    serviceUrl: 'http://127.0.0.1:9',
    defaultClient: { name: 'AGENT_API_KEY' } as unknown as AgentSessionsClient,
    defaultLent: () => true,
    ownTeam: async () => undefined,
    currentTeam: () => current,
    logger,
    cacheMs: 0,
    newClient: (apiKey) => ({ apiKey }) as unknown as AgentSessionsClient,
  });
  const linking = new KeyLinking({ keys, isAdmin: async () => true, refreshHome: async () => {}, logger });
  return { keys, linking, repo, cipher };
}

describe('a request with no team id under OAuth installs', () => {
  it('starts nothing: there is no key slot to start under, and the person is told why', async () => {
    const { keys } = oauthKeys(undefined);
    expect(await keys.forStart('U0DANA')).toEqual({ ok: false, message: NO_KEY_SLOT });
    // The same person in a workspace the request names starts as usual.
    expect(await oauthKeys('T0NORTH').keys.forStart('U0DANA')).toMatchObject({ ok: true });
  });

  it('links and removes nothing, and shows no key section', async () => {
    const { linking, repo } = oauthKeys(undefined);
    expect(await linking.openForm('link', 'U0ADMIN')).toEqual({ ok: false, message: NO_KEY_SLOT });
    expect(await linking.submitLink('U0ADMIN', { api_key: 'sk_live_org_key_0001' })).toEqual({
      ok: false,
      errors: { api_key: NO_KEY_SLOT },
    });
    expect(await linking.remove('U0ADMIN')).toEqual({ ok: false, message: NO_KEY_SLOT });
    expect(await linking.homeBlocks('U0ADMIN')).toEqual([]);
    expect([...repo.rows.keys()]).toEqual([]);
  });

  it("a key linked in a workspace is not another tenant's: each slot is its team's", async () => {
    const north = oauthKeys('T0NORTH');
    expect(await north.keys.slotOf('U0DANA')).toBe('team:T0NORTH');
    await expect(oauthKeys(undefined).keys.slotOf('U0DANA')).rejects.toThrow(NO_KEY_SLOT);
  });
});
