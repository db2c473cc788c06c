import { describe, expect, it } from 'vitest';
import { SessionDirectory } from '../../../src/services/people/directory.js';
import { fakeWorld, request, session } from '../../fakes.js';

function setup() {
  const world = fakeWorld();
  const seen = new Set<string>();
  const directory = new SessionDirectory({
    client: world.service,
    sessions: world.sessions,
    prompts: world.prompts,
    events: { markProcessed: async (id) => !seen.has(id) && Boolean(seen.add(id)) },
    card: async () => undefined,
  });
  return { ...world, directory };
}

describe('SessionDirectory', () => {
  it('lists a channel’s active sessions', async () => {
    const w = setup();
    expect(await w.directory.list('C0AGENTS')).toMatch(/^No active agent sessions/);
    w.sessions.add(session({ goal: 'Fix <bug>' }));
    w.sessions.add(session({ sessionId: 'old', finished: true }));
    const text = await w.directory.list('C0AGENTS');
    expect(text).toContain('(1)');
    expect(text).toContain('`sess_1` ⚙️ Running — Fix &lt;bug&gt; (<@U0ALICE>)');
  });

  it('shows a session’s card without its buttons, live numbers, and the questions still waiting', async () => {
    const w = setup();
    w.sessions.add(session());
    w.prompts.add('sess_1', request('approval'));
    const shown = await w.directory.status('C0AGENTS', 'sess_1');
    if (typeof shown === 'string') throw new Error(shown);
    const json = JSON.stringify(shown.blocks);
    expect(json).toContain('$1.500 spent');
    expect(json).toContain('input_approve');
    expect(json).not.toContain('session_pause');
    expect(await w.directory.status('C0AGENTS', 'nope')).toContain('No session `nope`');
  });

  it('publishes App Home once per Slack event', async () => {
    const w = setup();
    w.sessions.add(session());
    expect((await w.directory.home('U0ALICE', 'Ev1'))?.type).toBe('home');
    expect(await w.directory.home('U0ALICE', 'Ev1')).toBeUndefined();
  });
});
