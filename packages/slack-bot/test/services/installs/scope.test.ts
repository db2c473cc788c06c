import { describe, expect, it } from 'vitest';
import { SessionWorkspaces } from '../../../src/services/installs/scope.js';
import type { SessionRepository } from '../../../src/store/index.js';

/** A store that knows every session as workspace T1's, and counts what it is asked. */
function store(known = (id: string) => id !== 'unknown') {
  const asked: string[] = [];
  const sessions: Pick<SessionRepository, 'workspaceOf'> = {
    workspaceOf: async (id) => {
      asked.push(id);
      return known(id) ? { key: 'T1', teamId: 'T1' } : undefined;
    },
  };
  return { sessions, asked };
}

describe('SessionWorkspaces', () => {
  it('asks the store once per session; a session it does not know yet is asked again', async () => {
    const { sessions, asked } = store();
    const workspaces = new SessionWorkspaces(sessions, true);
    expect(await workspaces.of('s1')).toMatchObject({ teamId: 'T1', isolated: true });
    await workspaces.of('s1');
    await workspaces.of('unknown');
    await workspaces.of('unknown');
    expect(asked).toEqual(['s1', 'unknown', 'unknown']);
  });

  it('remembers 20,000 sessions: the least recently asked is forgotten, and asked of the store again', async () => {
    const { sessions, asked } = store();
    const workspaces = new SessionWorkspaces(sessions, true);
    for (let i = 0; i < 20_000; i++) await workspaces.of(`s${i}`);
    await workspaces.of('s0'); // s0 is now the most recently asked: s1 goes first
    await workspaces.of('one more');
    asked.length = 0;
    await workspaces.of('s0');
    await workspaces.of('s2');
    expect(asked).toEqual([]);
    await workspaces.of('s1');
    expect(asked).toEqual(['s1']);
  });
});
