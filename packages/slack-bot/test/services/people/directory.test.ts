import { describe, expect, it } from 'vitest';
import { SessionDirectory } from '../../../src/services/people/directory.js';
import type { ActPolicy } from '../../../src/services/people/policy.js';
import { fakeWorld, request, session } from '../../fakes.js';

/** Who may see what: the starter, and whoever a test lets in (the rule itself: visibility.test.ts). */
function setup(alsoSees: string[] = [], policy?: ActPolicy) {
  const world = fakeWorld();
  const seen = new Set<string>();
  const asked: string[] = [];
  const directory = new SessionDirectory({
    client: world.service,
    sessions: world.sessions,
    prompts: world.prompts,
    events: { markProcessed: async (id) => !seen.has(id) && Boolean(seen.add(id)), unmark: async () => {} },
    card: async () => undefined,
    visibility: {
      maySee: async (userId, session) => {
        asked.push(userId);
        return userId === session.startedBy || alsoSees.includes(userId);
      },
    },
    audit: { history: async (sessionId) => `History of ${sessionId}` },
    ...(policy ? { policy } : {}),
  });
  return { ...world, directory, asked };
}

describe('SessionDirectory', () => {
  it('lists a channel’s active sessions', async () => {
    const w = setup();
    expect(await w.directory.list('U0ALICE', 'C0AGENTS')).toMatch(/^No active agent sessions/);
    w.sessions.add(session({ goal: 'Fix <bug>' }));
    w.sessions.add(session({ sessionId: 'old', finished: true }));
    const text = await w.directory.list('U0ALICE', 'C0AGENTS');
    expect(text).toContain('(1)');
    expect(text).toContain('`sess_1` ⚙️ Running — Fix &lt;bug&gt; (<@U0ALICE>)');
    // The emulator's scenario word is not part of the goal people read.
    w.sessions.add(session({ sessionId: 'sess_2', goal: 'scenario:approval deploy v2' }));
    expect(await w.directory.list('U0ALICE', 'C0AGENTS')).toContain('`sess_2` ⚙️ Running — deploy v2 (');
  });

  it('shows a session’s card without its buttons, live numbers, and the questions still waiting', async () => {
    const w = setup();
    w.sessions.add(session());
    w.prompts.add('sess_1', request('approval'));
    const shown = await w.directory.status('U0ALICE', 'C0AGENTS', 'sess_1');
    if (typeof shown === 'string') throw new Error(shown);
    const json = JSON.stringify(shown.blocks);
    expect(json).toContain('*Cost*\\n$1.50');
    expect(json).toContain('What is a round?');
    expect(json).toContain('input_approve');
    expect(json).not.toContain('session_pause');
    expect(await w.directory.status('U0ALICE', 'C0AGENTS', 'nope')).toBe(
      'There is no session `nope` that you can see.',
    );
  });

  it('an ended session: one summary, the service’s numbers, its elapsed time stopped at its end', async () => {
    const w = setup();
    // Ended long ago in the store's eyes: the card this replica would draw has no numbers of its own.
    w.sessions.add(session({ status: 'cancelled', finished: true, budget: 2 }));
    w.service.snapshot = {
      status: 'cancelled',
      cost: { totalCost: 0.032 },
      rounds: [{}, {}],
      createdAt: '2026-11-22T12:00:00.000Z',
      completedAt: '2026-11-22T12:00:29.000Z',
    };
    const shown = await w.directory.status('U0ALICE', 'C0AGENTS', 'sess_1');
    if (typeof shown === 'string') throw new Error(shown);
    const fields = shown.blocks.find((b) => b.type === 'section' && 'fields' in b);
    expect(JSON.stringify(fields)).toBe(
      JSON.stringify({
        type: 'section',
        fields: [
          { type: 'mrkdwn', text: '*Status*\n🛑 Ended · Cancelled' },
          { type: 'mrkdwn', text: '*Cost*\n$0.032 of $2.00\n`░░░░░░░░░░ 2%`' },
          { type: 'mrkdwn', text: '*Rounds*\n2' },
          { type: 'mrkdwn', text: '*Elapsed*\n29s' },
        ],
      }),
    );
    // One summary: no second line with other numbers beside the card's.
    const json = JSON.stringify(shown.blocks);
    expect(json).not.toMatch(/\$0\.000|spent/);
    expect(shown.text).toContain('🛑 Ended · Cancelled');
  });

  it('an ended session the service can’t tell about: its numbers unknown, its elapsed time not running on', async () => {
    const w = setup();
    w.sessions.add(session({ status: 'cancelled', finished: true }));
    w.service.snapshot = null;
    const shown = await w.directory.status('U0ALICE', 'C0AGENTS', 'sess_1');
    if (typeof shown === 'string') throw new Error(shown);
    const json = JSON.stringify(shown.blocks);
    expect(json).toContain('*Cost*\\n—');
    expect(json).toContain('*Rounds*\\n—');
    expect(json).toContain('*Elapsed*\\n—');
  });

  it('to someone who may not see a session, it answers as for one that doesn’t exist, and asks the service nothing', async () => {
    const w = setup(['U0BOB']);
    w.sessions.add(session());
    w.prompts.add('sess_1', request('approval'));
    const notFound = await w.directory.status('U0CAROL', 'C0AGENTS', 'nope');
    expect(notFound).toBe('There is no session `nope` that you can see.');
    const calls = w.calls.length;
    expect(await w.directory.status('U0CAROL', 'C0AGENTS', 'sess_1')).toBe(
      'There is no session `sess_1` that you can see.',
    );
    expect(await w.directory.history('U0CAROL', 'sess_1')).toBe(
      'There is no session `sess_1` that you can see.',
    );
    expect(await w.directory.history('U0CAROL', 'nope')).toBe('There is no session `nope` that you can see.');
    // Only the local record was read: nothing went to the service for Carol.
    expect(w.calls.slice(calls).filter(([m]) => String(m).startsWith('service.'))).toEqual([]);
    expect(await w.directory.list('U0CAROL', 'C0AGENTS')).toMatch(/^No active agent sessions/);
    // The latest session of the channel (no id given) is not shown to her either.
    expect(await w.directory.status('U0CAROL', 'C0AGENTS', undefined)).toMatch(
      /^No active session in this channel/,
    );

    expect(typeof (await w.directory.status('U0BOB', 'C0AGENTS', 'sess_1'))).toBe('object');
    expect(await w.directory.history('U0BOB', 'sess_1')).toBe('History of sess_1');
    expect(await w.directory.list('U0BOB', 'C0AGENTS')).toContain('`sess_1`');
  });

  it('App Home lists a waiting question only to whom may see its session, whatever the policy says', async () => {
    const anyone: ActPolicy = { mayAct: async () => ({ allowed: true }) };
    const w = setup(['U0BOB'], anyone);
    w.sessions.add(session({ status: 'waiting_human' }));
    w.prompts.add('sess_1', request('approval'));
    const homeOf = async (user: string, event: string) =>
      JSON.stringify((await w.directory.home(user, event))?.blocks);
    expect(await homeOf('U0BOB', 'Ev1')).toContain('Waiting on you (1)');
    expect(await homeOf('U0CAROL', 'Ev2')).not.toContain('Waiting on you');
  });

  it('publishes App Home once per Slack event', async () => {
    const w = setup();
    w.sessions.add(session());
    expect((await w.directory.home('U0ALICE', 'Ev1'))?.type).toBe('home');
    expect(await w.directory.home('U0ALICE', 'Ev1')).toBeUndefined();
  });
});
