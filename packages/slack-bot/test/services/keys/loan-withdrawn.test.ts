import type { AgentSessionsClient } from '@agent-sessions/core';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.js';
import { keyParts } from '../../../src/services/keys/index.js';
import { describeServiceFailure } from '../../../src/services/outcome.js';
import type { SessionRecord } from '../../../src/store/records.js';
import { keysRepo } from './memory-key-rows.js';

// Under OAuth, AGENT_API_KEY serves the workspaces AGENT_API_KEY_TEAMS lists. Taken off the list, a
// workspace starts nothing more on it, and its sessions already running stop spending it too: their
// calls are refused with a note, and they wait (as for a removed key) until it is lent again.

const logger = createLogger({ secrets: [], level: 'silent' });

/** The operator's client: every call it is asked to make is written down, and answered. */
function operatorClient(calls: string[]): AgentSessionsClient {
  const record =
    (name: string) =>
    async (sessionId: string): Promise<Record<string, unknown>> => {
      calls.push(`${name} ${sessionId}`);
      return { sessionId, status: 'running' };
    };
  const sessions = {
    get: record('get'),
    messages: async (sessionId: string) => {
      calls.push(`messages ${sessionId}`);
      return { messages: [], pagination: { hasMore: false, lastRoundId: null } };
    },
    resume: record('resume'),
    respond: record('respond'),
  };
  return { sessions } as unknown as AgentSessionsClient;
}

function world() {
  const lentTo = new Set(['T0NORTH']);
  const calls: string[] = [];
  const notes: string[] = [];
  const unfollowed: string[] = [];
  const parts = keyParts({
    config: undefined,
    serviceUrl: 'http://127.0.0.1:9',
    defaultApiKey: 'sk_operator_key_0001',
    defaultClient: operatorClient(calls),
    defaultLent: () => true,
    // Every session here is T0NORTH's.
    lentToSession: async () => lentTo.has('T0NORTH'),
    // Every session here ran under AGENT_API_KEY (no slot of its own).
    repo: keysRepo(null),
    ownTeam: async () => undefined,
    unfollow: (sessionId) => unfollowed.push(sessionId),
    notify: async (_session, _key, text) => {
      notes.push(text);
    },
    registry: new Registry(),
    requestsPerSecond: 5,
    logger,
  });
  return { parts, lentTo, calls, notes, unfollowed };
}

const SESSION = { sessionId: 'ses_north_1', startedBy: 'U0DANA' } as SessionRecord;

describe("AGENT_API_KEY's loan withdrawn from a workspace", () => {
  it("refuses its running sessions' calls with a note; the operator's key is asked nothing", async () => {
    const { parts, lentTo, calls } = world();
    await parts.calls.sessions.resume(SESSION.sessionId, {});
    expect(calls).toEqual([`resume ${SESSION.sessionId}`]);

    lentTo.delete('T0NORTH');
    const refused = await parts.calls.sessions.resume(SESSION.sessionId, {}).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ name: 'KeyUnavailableError', reason: 'withdrawn', status: 401 });
    expect(describeServiceFailure(refused)).toBe(
      'the app’s own service key this session runs under is no longer lent to this workspace: the session waits until the bot’s operator lends the key to this workspace again (`AGENT_API_KEY_TEAMS`); sessions started after a workspace admin links a key on my Home tab run under that key',
    );
    await expect(parts.calls.sessions.respond(SESSION.sessionId, 'in_1', { approved: true })).rejects.toThrow(
      'no longer lent',
    );
    expect(calls).toEqual([`resume ${SESSION.sessionId}`]);
  });

  it('the follower stops: the thread is told once, the session waits, and is followed again once lent', async () => {
    const { parts, lentTo, calls, notes, unfollowed } = world();
    const reader = await parts.guard.readerFor(SESSION.sessionId);
    expect(reader).not.toBe('waiting');

    lentTo.delete('T0NORTH');
    const poll = parts.readers.readerOf(null).sessions.get(SESSION.sessionId);
    const error = await poll.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(await parts.guard.onError(SESSION, error)).toBe(true);
    expect(await parts.guard.onError(SESSION, error)).toBe(true);
    expect(unfollowed).toEqual([SESSION.sessionId, SESSION.sessionId]);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^🔑 I’ve stopped following this session: .*no longer lent to this workspace/);
    expect(await parts.guard.readerFor(SESSION.sessionId)).toBe('waiting');
    expect(calls).toEqual([]);

    lentTo.add('T0NORTH');
    const again = await parts.guard.readerFor(SESSION.sessionId);
    expect(again).not.toBe('waiting');
    if (again !== 'waiting') await again.sessions.get(SESSION.sessionId);
    expect(calls).toEqual([`get ${SESSION.sessionId}`]);
  });
});
