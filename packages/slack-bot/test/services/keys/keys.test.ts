import { randomBytes } from 'node:crypto';
import { type AgentSessionsClient, Follower, type SessionsReader } from '@agent-sessions/core';
import { describe, expect, it, vi } from 'vitest';
import { patient } from '../../../../../test/support/patience.js';
import { createLogger } from '../../../src/logger.js';
import { KeyCipher } from '../../../src/services/keys/cipher.js';
import { WorkspaceAdmins } from '../../../src/services/keys/key-admins.js';
import { KeyGuard } from '../../../src/services/keys/key-guard.js';
import { KeyLinking } from '../../../src/services/keys/key-linking.js';
import { SlotReaders } from '../../../src/services/keys/keyed-calls.js';
import { type KeyMode, ServiceKeys } from '../../../src/services/keys/service-keys.js';
import type { SessionRecord } from '../../../src/store/records.js';
import type { ServiceKeyRepository, StoredServiceKey } from '../../../src/store/service-keys.js';

const logger = createLogger({
  secrets: [],
  destination: { write: () => true } as unknown as NodeJS.WritableStream,
});

/** The repository in memory: what the SQL one does, for tests that are about the rules above it. */
class MemoryKeys implements ServiceKeyRepository {
  readonly rows = new Map<string, StoredServiceKey>();
  readonly refs = new Map<string, string | null>();
  readonly notices = new Set<string>();
  async get(ref: string) {
    return this.rows.get(ref);
  }
  async put(k: Omit<StoredServiceKey, 'linkedAt'>) {
    this.rows.set(k.ref, { ...k, linkedAt: new Date().toISOString() });
  }
  async delete(ref: string, version: string) {
    const row = this.rows.get(ref);
    if (!row || row.ciphertext === '') return false;
    this.rows.set(ref, { ...row, ciphertext: '', keyId: '', hint: '', version });
    return true;
  }
  async encryptedWithOther(keyId: string) {
    return [...this.rows.values()].filter((r) => r.keyId !== keyId && r.ciphertext !== '');
  }
  async reencrypt(ref: string, was: string, ciphertext: string, keyId: string) {
    const row = this.rows.get(ref);
    if (row?.ciphertext !== was) return false;
    this.rows.set(ref, { ...row, ciphertext, keyId });
    return true;
  }
  async refOf(sessionId: string) {
    return this.refs.get(sessionId);
  }
  async noticeOnce(sessionId: string, version: string) {
    const key = `${sessionId}|${version}`;
    if (this.notices.has(key)) return false;
    this.notices.add(key);
    return true;
  }
  async noticed(sessionId: string, version: string) {
    return this.notices.has(`${sessionId}|${version}`);
  }
}

/** A client that answers every read at once and writes down which key each request went with. */
function recordingClient(apiKey: string, log: string[]): AgentSessionsClient {
  const reader: SessionsReader['sessions'] = {
    get: async (sessionId) => {
      log.push(apiKey);
      return { sessionId, status: 'running' };
    },
    messages: async () => {
      log.push(apiKey);
      return { messages: [], pagination: { hasMore: false, lastRoundId: null } };
    },
  };
  return { sessions: reader, close: async () => {} } as unknown as AgentSessionsClient;
}

function setup(mode: KeyMode, options: { cipher?: boolean; cacheMs?: number } = {}) {
  const repo = new MemoryKeys();
  const log: string[] = [];
  const keys = new ServiceKeys({
    repo,
    cipher: options.cipher === false ? undefined : new KeyCipher(randomBytes(32)),
    mode,
    serviceUrl: 'http://127.0.0.1:9',
    defaultClient: recordingClient('default', log),
    ownTeam: async () => 'T1',
    logger,
    cacheMs: options.cacheMs ?? 0,
    newClient: (apiKey) => recordingClient(apiKey, log),
  });
  return { repo, keys, log };
}

describe('one request budget per key (core’s Follower lanes, one reader per slot)', () => {
  it('a heavy team’s sessions don’t hold back another team’s: its first poll comes before the heavy key’s second', async () => {
    const { keys, repo, log } = setup('per-workspace');
    await keys.link({ ref: 'team:T1', teamId: 'T1', userId: null, apiKey: 'heavy', by: 'U1' });
    await keys.link({ ref: 'team:T2', teamId: 'T2', userId: null, apiKey: 'light', by: 'U2' });
    const readers = new SlotReaders(keys, async () => 'T0');
    // One request a second per key, no burst: with one budget for both, the light team's session would
    // wait behind all eight heavy ones.
    const follower = new Follower({ client: readers.readerOf(null), requestsPerSecond: 1, burst: 1 });
    for (let i = 0; i < 8; i++) {
      repo.refs.set(`heavy_${i}`, 'team:T1');
      await follower.follow(`heavy_${i}`, { client: readers.readerOf('team:T1') });
    }
    repo.refs.set('light_0', 'team:T2');
    await follower.follow('light_0', { client: readers.readerOf('team:T2') });
    follower.start();
    await expect
      .poll(() => log.filter((k) => k === 'heavy').length, { timeout: patient(10_000) })
      .toBeGreaterThanOrEqual(2);
    await follower.stop();
    const secondHeavy = log.indexOf('heavy', log.indexOf('heavy') + 1);
    expect(log.indexOf('light')).toBeGreaterThanOrEqual(0);
    expect(log.indexOf('light')).toBeLessThan(secondHeavy);
    expect(readers.readerOf('team:T1')).toBe(readers.readerOf('team:T1'));
    expect(readers.requests.get('T2')).toBeGreaterThan(0);
    expect(readers.lanesByTeam()).toEqual(
      new Map([
        ['T1', 1],
        ['T2', 1],
      ]),
    );
  });
});

describe('a session’s client at hand, with no read and no wait (clientOfSessionNow)', () => {
  it('AGENT_API_KEY’s where no loan is checked; a slot’s only while its key, read lately, is kept', async () => {
    const { keys } = setup('per-workspace', { cacheMs: 60_000 });
    expect(keys.clientOfSessionNow(null)).toBe(await keys.clientOfSession(null, 'sess_1'));
    await keys.link({ ref: 'team:T1', teamId: 'T1', userId: null, apiKey: 'sk_team', by: 'U1' });
    // Linked, not yet read for a session: only clientOfSession can say.
    expect(keys.clientOfSessionNow('team:T1')).toBeUndefined();
    const read = await keys.clientOfSession('team:T1', 'sess_1');
    expect(keys.clientOfSessionNow('team:T1')).toBe(read);
    await keys.remove('team:T1', 'U1');
    expect(keys.clientOfSessionNow('team:T1')).toBeUndefined();
    await expect(keys.clientOfSession('team:T1', 'sess_1')).rejects.toThrow(/removed/);
    expect(keys.clientOfSessionNow('team:T1')).toBeUndefined();
  });

  it('never past the cache’s time, nor AGENT_API_KEY’s where its loan must be checked', async () => {
    const { keys } = setup('per-workspace');
    await keys.link({ ref: 'team:T1', teamId: 'T1', userId: null, apiKey: 'sk_team', by: 'U1' });
    await keys.clientOfSession('team:T1', 'sess_1');
    expect(keys.clientOfSessionNow('team:T1')).toBeUndefined();
    const lending = new ServiceKeys({
      repo: new MemoryKeys(),
      cipher: undefined,
      mode: 'per-workspace',
      serviceUrl: 'http://127.0.0.1:9',
      defaultClient: recordingClient('default', []),
      lentToSession: async () => true,
      ownTeam: async () => 'T1',
      logger,
    });
    expect(lending.clientOfSessionNow(null)).toBeUndefined();
  });
});

describe('rotation across replicas', () => {
  it('mid-rotation, a replica that can’t read the key waits under a version of its own; one that can follows', async () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const repo = new MemoryKeys();
    const replica = (cipher: KeyCipher) =>
      new ServiceKeys({
        repo,
        cipher,
        mode: 'per-person',
        serviceUrl: 'http://127.0.0.1:9',
        defaultClient: recordingClient('default', []),
        ownTeam: async () => 'T1',
        logger,
        cacheMs: 0,
        newClient: (apiKey) => recordingClient(apiKey, []),
      });
    const before = replica(new KeyCipher(oldKey));
    await before.link({ ref: 'person:T1:U1', teamId: 'T1', userId: 'U1', apiKey: 'k_rotated', by: 'U1' });
    const linked = await before.versionOf('person:T1:U1');
    // Step 1 on one replica: the new key, decrypt-only. Nothing is re-encrypted, both read.
    const stepOne = replica(new KeyCipher(oldKey, [newKey]));
    expect(await stepOne.reencryptAll()).toEqual({ reencrypted: 0, unreadable: 0 });
    // Step 2 on another: the new key current; it re-encrypts.
    const stepTwo = replica(new KeyCipher(newKey, [oldKey]));
    expect(await stepTwo.reencryptAll()).toEqual({ reencrypted: 1, unreadable: 0 });
    expect(await stepOne.versionOf('person:T1:U1')).toBe(linked);
    expect(await stepTwo.versionOf('person:T1:U1')).toBe(linked);
    // A replica skipped step 1 can't read it: its notice and its wait are under a version of its own.
    const skipped = await before.versionOf('person:T1:U1');
    expect(skipped).toMatch(/:unreadable:/);
    expect(skipped).not.toBe(linked);
  });
});

describe('which workspace a slot belongs to', () => {
  it('the current request’s workspace when the bot serves several, else the bot’s own', async () => {
    const base = {
      repo: new MemoryKeys(),
      cipher: undefined,
      mode: 'per-person' as const,
      serviceUrl: 'http://127.0.0.1:9',
      defaultClient: recordingClient('default', []),
      ownTeam: async () => 'T_HOME',
      logger,
    };
    expect(await new ServiceKeys(base).slotOf('U1')).toBe('person:T_HOME:U1');
    expect(await new ServiceKeys({ ...base, currentTeam: () => 'T_OTHER' }).slotOf('U1')).toBe(
      'person:T_OTHER:U1',
    );
    expect(await new ServiceKeys({ ...base, mode: 'per-workspace' }).slotOf('U1')).toBe('team:T_HOME');
  });
});

describe('KeyGuard', () => {
  const session = { sessionId: 's1', startedBy: 'U1', channelId: 'C1', cardTs: '1.0' } as SessionRecord;

  it('a 401 is said once per key version, the session unfollowed and left waiting until a key is linked again', async () => {
    const { keys, repo } = setup('per-person');
    await keys.link({ ref: 'person:T1:U1', teamId: 'T1', userId: 'U1', apiKey: 'k_one', by: 'U1' });
    repo.refs.set('s1', 'person:T1:U1');
    const said: string[] = [];
    const unfollowed: string[] = [];
    const guard = new KeyGuard({
      keys,
      readers: new SlotReaders(keys, async () => 'T1'),
      repo,
      unfollow: (id) => unfollowed.push(id),
      notify: async (_s, key, text) => {
        said.push(`${key}: ${text}`);
      },
      logger,
    });
    expect(await guard.onError(session, Object.assign(new Error('boom'), { status: 500 }))).toBe(false);
    expect(await guard.readerFor('s1')).not.toBe('waiting');
    const refused = Object.assign(new Error('invalid API key'), { status: 401 });
    expect(await guard.onError(session, refused)).toBe(true);
    expect(await guard.onError(session, refused)).toBe(true);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/refused the key it runs under \(401\).*<@U1>, link your key/);
    expect(unfollowed).toEqual(['s1', 's1']);
    expect(await guard.readerFor('s1')).toBe('waiting');
    await keys.link({ ref: 'person:T1:U1', teamId: 'T1', userId: 'U1', apiKey: 'k_two', by: 'U1' });
    expect(await guard.readerFor('s1')).not.toBe('waiting');
  });
});

describe('KeyLinking', () => {
  const linking = (keys: ServiceKeys, admins: string[] = []) => {
    const refreshed: string[] = [];
    const service = new KeyLinking({
      keys,
      isAdmin: async (userId) => admins.includes(userId),
      refreshHome: async (userId) => {
        refreshed.push(userId);
      },
      logger,
    });
    return { service, refreshed };
  };

  it('without an encryption key nothing is linked, and the form says why', async () => {
    const { keys, repo } = setup('per-person', { cipher: false });
    const { service } = linking(keys);
    const form = await service.openForm('link', 'U1');
    expect(form).toEqual({
      ok: false,
      message: expect.stringMatching(/AGENT_KEY_ENCRYPTION_KEY.*never stored unencrypted/),
    });
    const submitted = await service.submitLink('U1', { api_key: 'k_anything' });
    expect(submitted.ok).toBe(false);
    expect(repo.rows.size).toBe(0);
    const home = JSON.stringify(await service.homeBlocks('U1'));
    expect(home).toContain('AGENT_KEY_ENCRYPTION_KEY');
    expect(home).not.toContain('keys_link');
  });

  it('per-workspace: only admins manage the workspace’s key; everyone else sees it masked, without controls', async () => {
    const { keys } = setup('per-workspace');
    const { service } = linking(keys, ['U_ADMIN']);
    expect(await service.openForm('link', 'U_PERSON')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/Only a workspace admin/),
    });
    expect(await service.remove('U_PERSON')).toMatchObject({ ok: false });
    expect(await service.openForm('link', 'U_ADMIN')).toMatchObject({ ok: true });
    expect(await service.openForm('signup', 'U_ADMIN')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/AGENT_ALLOW_SIGNUP/),
    });
  });

  it('a key no configured encryption key can read is shown as such, with what to do', async () => {
    const { keys, repo } = setup('per-person');
    await keys.link({
      ref: 'person:T1:U1',
      teamId: 'T1',
      userId: 'U1',
      apiKey: 'sk_readable_once_1234',
      by: 'U1',
    });
    const after = new ServiceKeys({
      repo,
      cipher: new KeyCipher(randomBytes(32)),
      mode: 'per-person',
      serviceUrl: 'http://127.0.0.1:9',
      defaultClient: recordingClient('default', []),
      ownTeam: async () => 'T1',
      logger,
    });
    const home = JSON.stringify(await linking(after).service.homeBlocks('U1'));
    expect(home).toContain('sk_…1234');
    expect(home).toContain('can’t be read any more');
    expect(JSON.stringify(await linking(keys).service.homeBlocks('U1'))).not.toContain('can’t be read');
  });

  it('a key the service refuses is named under the field; nothing typed is dropped silently', async () => {
    const { keys } = setup('per-person');
    const { service } = linking(keys);
    expect(await service.submitLink('U1', {})).toEqual({
      ok: false,
      errors: { api_key: 'Paste the API key' },
    });
    expect(await service.submitLink('U1', { api_key: 'two words' })).toEqual({
      ok: false,
      errors: { api_key: 'An API key has no spaces or line breaks' },
    });
  });
});

describe('WorkspaceAdmins', () => {
  const admins = (user: Record<string, unknown> | undefined, approver = false) =>
    new WorkspaceAdmins({
      usersInfo: async () => user,
      isApprover: async () => approver,
      ownTeam: async () => 'T1',
      logger,
    });

  it('Slack’s admins and owners of the bot’s workspace, and the bot’s approvers', async () => {
    expect(await admins({ team_id: 'T1', is_admin: true }).includes('U1')).toBe(true);
    expect(await admins({ team_id: 'T1', is_owner: true }).includes('U1')).toBe(true);
    expect(await admins({ team_id: 'T1', is_primary_owner: true }).includes('U1')).toBe(true);
    expect(await admins({ team_id: 'T1' }, true).includes('U1')).toBe(true);
  });

  it('nobody else: members, another workspace’s admin, a guest, a stranger, someone Slack can’t tell us about', async () => {
    expect(await admins({ team_id: 'T1' }).includes('U1')).toBe(false);
    expect(await admins({ team_id: 'T2', is_admin: true }).includes('U1')).toBe(false);
    expect(await admins({ team_id: 'T1', is_admin: true, is_restricted: true }).includes('U1')).toBe(false);
    expect(await admins({ team_id: 'T1', is_admin: true, is_stranger: true }).includes('U1')).toBe(false);
    const failing = new WorkspaceAdmins({
      usersInfo: async () => {
        throw new Error('user_not_found');
      },
      isApprover: async () => false,
      ownTeam: async () => 'T1',
      logger,
    });
    expect(await failing.includes('U1')).toBe(false);
  });

  it('on Enterprise Grid, an admin of T1 is no admin of T2 even right after the check in T1 (cached per workspace)', async () => {
    // One user id in both workspaces of the organisation; Slack answers for the workspace asked about.
    let team = 'T1';
    const infoCalls: string[] = [];
    const grid = new WorkspaceAdmins({
      usersInfo: async () => {
        infoCalls.push(team);
        return { team_id: team, is_admin: team === 'T1' };
      },
      isApprover: async () => false,
      ownTeam: async () => team,
      logger,
    });
    expect(await grid.includes('U1')).toBe(true);
    team = 'T2';
    expect(await grid.includes('U1')).toBe(false);
    team = 'T1';
    expect(await grid.includes('U1')).toBe(true);
    // Each workspace asked Slack once: the second check in T1 came from the cache.
    expect(infoCalls).toEqual(['T1', 'T2']);
  });

  it('what Slack said is kept ttlMs, then asked again', async () => {
    let now = Date.now();
    const spy = vi.spyOn(Date, 'now').mockImplementation(() => now);
    let asked = 0;
    const admins = new WorkspaceAdmins({
      usersInfo: async () => {
        asked += 1;
        return { team_id: 'T1', is_admin: asked === 1 };
      },
      isApprover: async () => false,
      ownTeam: async () => 'T1',
      logger,
      ttlMs: 60_000,
    });
    try {
      expect(await admins.includes('U1')).toBe(true);
      now += 59_000;
      expect(await admins.includes('U1')).toBe(true);
      now += 2_000;
      expect(await admins.includes('U1')).toBe(false); // no longer an admin, and Slack was asked again
    } finally {
      spy.mockRestore();
    }
    expect(asked).toBe(2);
  });

  it('a cached answer still goes through the workspace check', async () => {
    let team = 'T1';
    const same = new WorkspaceAdmins({
      usersInfo: async () => ({ team_id: 'T1', is_admin: true }),
      isApprover: async () => false,
      ownTeam: async () => team,
      logger,
    });
    expect(await same.includes('U1')).toBe(true);
    team = 'T2';
    expect(await same.includes('U1')).toBe(false);
  });
});
