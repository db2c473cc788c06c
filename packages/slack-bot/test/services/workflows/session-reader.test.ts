import { describe, expect, it } from 'vitest';
import { type SessionKeys, sessionReader } from '../../../src/services/workflows/session-reader.js';
import type { EndedSession } from '../../../src/services/workflows/step-outcome.js';
import { NoKeyHere } from '../../../src/services/workflows/workflow-steps.js';

/** Each client answers with the key it was made with, so a read says whose key it went with. */
function keysWith(startKey: { ok: true; ref: string | undefined } | { ok: false; message: string }) {
  const reads: string[] = [];
  const client = (name: string) => ({
    sessions: {
      get: async (sessionId: string) => {
        reads.push(`${name}:${sessionId}`);
        return { id: sessionId, status: 'completed' } as unknown as EndedSession;
      },
    },
  });
  const keys: SessionKeys = {
    calls: client('own'),
    forStart: async () => (startKey.ok ? { ...startKey, client: client(startKey.ref ?? 'lent') } : startKey),
  };
  return { keys, reads };
}

describe('the wait step’s read of a session', () => {
  it('a session the bot started goes with its own key, in every mode', async () => {
    const { keys, reads } = keysWith({ ok: true, ref: undefined });
    await sessionReader(keys, true)('s_mine', true);
    await sessionReader(keys, false)('s_mine', true);
    expect(reads).toEqual(['own:s_mine', 'own:s_mine']);
  });

  it('one started elsewhere goes with the key a start here would use: the workspace’s, or AGENT_API_KEY with one workspace', async () => {
    const linked = keysWith({ ok: true, ref: 'team:T0NORTH' });
    await sessionReader(linked.keys, true)('s_n8n', false);
    expect(linked.reads).toEqual(['team:T0NORTH:s_n8n']);
    const single = keysWith({ ok: true, ref: undefined });
    await sessionReader(single.keys, false)('s_n8n', false);
    expect(single.reads).toEqual(['lent:s_n8n']);
  });

  it('under OAuth installs, AGENT_API_KEY (lent to every workspace) reads nothing the bot did not start', async () => {
    const { keys, reads } = keysWith({ ok: true, ref: undefined });
    const read = sessionReader(keys, true)('s_someone_elses', false);
    await expect(read).rejects.toBeInstanceOf(NoKeyHere);
    await expect(read).rejects.toThrow(/s_someone_elses .*AGENT_API_KEY is lent to every workspace/);
    expect(reads).toEqual([]);
  });

  it('no key here: the reason, and no read', async () => {
    const { keys, reads } = keysWith({ ok: false, message: 'Link a key on my Home tab.' });
    await expect(sessionReader(keys, false)('s_n8n', false)).rejects.toThrow('Link a key on my Home tab.');
    expect(reads).toEqual([]);
  });
});
