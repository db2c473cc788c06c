import { describe, expect, it } from 'vitest';
import { agentAnswered, agentSignalled } from '../../src/wiring/agent-surface.js';
import type { AgentParts } from '../../src/wiring/types.js';

function fakeAgent() {
  const calls: Array<[string, string, string]> = [];
  const agent = {
    sessions: {
      status: (id: string, status: string) => void calls.push(['status', id, status]),
      rename: (id: string, title: string) => void calls.push(['rename', id, title]),
    },
  } as unknown as AgentParts;
  return { agent, calls };
}

describe('a person’s act shows in Slack’s session at once', () => {
  it('pause → suspended, resume and an answer → processing, cancel → closed; a redirect renames', () => {
    const { agent, calls } = fakeAgent();
    const signalled = agentSignalled(agent);
    signalled('s1', 'pause', {});
    signalled('s1', 'resume', {});
    signalled('s1', 'cancel', { message: 'ignored' });
    signalled('s1', 'redirect', { message: 'Only the docs' });
    agentAnswered(agent)('s1');
    expect(calls).toEqual([
      ['status', 's1', 'paused'],
      ['status', 's1', 'running'],
      ['status', 's1', 'cancelled'],
      ['status', 's1', 'running'],
      ['rename', 's1', 'Only the docs'],
      ['status', 's1', 'running'],
    ]);
  });
});
