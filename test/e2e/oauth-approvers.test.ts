import { secondSeed, type WorkspaceSeed } from '@agent-sessions/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETUP_TIMEOUT_MS, WAIT_MS } from './harness.js';
import { HUMAN_INPUT_ROUTE, isPrompt } from './helpers.js';
import { HOME, NORTH, type OAuthWorld, type Place, startOAuthWorld, waitInThread } from './oauth-world.js';

// Approvers named per workspace. Erin is Northwind's approver by prefix (T0NORTH:U0ERIN), Bob is
// listed without one — he belongs to the home workspace, so under OAuth he counts there only: in Northwind,
// where he is a Slack Connect member of #agents (users.info there names his home team), he is no approver.
// Four eyes (approvers-only), so only an approver can approve, and approvers see every session.

/** Northwind, with Bob of the home workspace in its #agents through Slack Connect. */
function northwindWithBob(): WorkspaceSeed {
  const seed = secondSeed();
  const bob = { id: BOB, name: 'bob', real_name: 'Bob (Slack Connect)', is_bot: false, team_id: HOME.team };
  return {
    ...seed,
    users: [
      ...seed.users,
      { ...bob, tz: 'America/New_York', profile: { display_name: 'bob', real_name: bob.real_name } },
    ],
    channelMembers: { ...seed.channelMembers, C0NAGENTS: [...(seed.channelMembers?.C0NAGENTS ?? []), BOB] },
  };
}

const BOB = 'U0BOB';
const ERIN = 'U0ERIN';

describe('approvers per workspace under OAuth', () => {
  let w: OAuthWorld;
  beforeAll(async () => {
    w = await startOAuthWorld({
      env: { AGENT_APPROVERS: `T0NORTH:${ERIN},${BOB}`, AGENT_APPROVAL_POLICY: 'approvers-only' },
      workspaces: [northwindWithBob()],
    });
    await w.addBot();
    await w.install(HOME.team);
    await w.install(NORTH.team);
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await w?.stop();
  });

  const answers = async () => (await w.emulator.admin.stats()).requests[HUMAN_INPUT_ROUTE] ?? 0;
  const answered = async (before: number) => {
    const until = Date.now() + WAIT_MS;
    while (Date.now() < until) {
      if ((await answers()) > before) return true;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return false;
  };
  /** Clicks Approve on the session's prompt as `user`, in `place`'s workspace; what `user` is told, if anything. */
  const approve = async (place: Place, user: string, promptTs: string) => {
    const ws = w.sandbox.workspaceFor(place.team);
    const before = ws.ephemerals.length;
    await w.driver(place.team).act({ user, channel: place.channel, ts: promptTs, actionId: 'input_approve' });
    return () =>
      ws.ephemerals
        .slice(before)
        .filter((e) => e.user === user)
        .map((e) => e.text ?? '')
        .join('\n');
  };

  it('a request from Northwind carrying the home approver’s id is refused, nothing sent; Erin approves there', async () => {
    const { cardTs } = await w.start(NORTH, 'scenario:approval deploy the northwind service');
    const prompt = await waitInThread(w.sandbox, NORTH, cardTs, isPrompt, 'the northwind prompt');
    const before = await answers();
    const told = await approve(NORTH, BOB, prompt.ts);
    const refusal = await w.sandbox
      .workspaceFor(NORTH.team)
      .waitFor(() => told() || undefined, { what: 'the refusal to Bob', timeoutMs: WAIT_MS });
    expect(refusal).not.toBe('');
    expect(await answers()).toBe(before);

    await approve(NORTH, ERIN, prompt.ts);
    expect(await answered(before)).toBe(true);
  });

  it('in the home workspace Bob, listed without a prefix, approves as before', async () => {
    const { cardTs } = await w.start(HOME, 'scenario:approval deploy the home service');
    const prompt = await waitInThread(w.sandbox, HOME, cardTs, isPrompt, 'the home prompt');
    const before = await answers();
    await approve(HOME, BOB, prompt.ts);
    expect(await answered(before)).toBe(true);
  });
});
