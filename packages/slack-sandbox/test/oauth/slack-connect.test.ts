import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  defaultSeed,
  type RunningSandbox,
  secondSeed,
  startSandbox,
  withSharedChannel,
} from '../../src/index.js';
import { installInto, sandboxClient } from './installed.js';

/** A Slack Connect channel: one id in both organisations, one history, each person of their own team. */

const SHARED = 'C0SHARED';
let sandbox: RunningSandbox;
const tokens: Record<string, string> = {};

const client = (token?: string) => sandboxClient(sandbox, token);

beforeAll(async () => {
  const [home, north] = withSharedChannel(defaultSeed(), secondSeed(), {
    id: SHARED,
    name: 'partners',
    members: { a: ['U0BOB'], b: ['U0ERIN'] },
  });
  sandbox = await startSandbox({
    seed: home,
    workspaces: [north],
    oauth: { redirectUrls: ['http://127.0.0.1:9/cb'] },
    rateLimits: false,
  });
  Object.assign(
    tokens,
    await installInto(sandbox, ['T0SANDBOX', 'T0NORTH'], ['chat:write', 'channels:read', 'users:read']),
  );
});
afterAll(async () => {
  await sandbox?.close();
});

describe('a Slack Connect channel', () => {
  it('has one id and one history in both workspaces', async () => {
    const home = client(tokens.T0SANDBOX);
    const north = client(tokens.T0NORTH);
    const posted = await home.chat.postMessage({ channel: SHARED, text: 'from the home workspace' });
    const reply = await north.chat.postMessage({
      channel: SHARED,
      text: 'from Northwind',
      thread_ts: posted.ts as string,
    });
    const seenInNorth = await north.conversations.history({ channel: SHARED });
    expect(seenInNorth.messages?.map((m) => m.text)).toContain('from the home workspace');
    const thread = await home.conversations.replies({ channel: SHARED, ts: posted.ts as string });
    expect(thread.messages?.map((m) => m.ts)).toEqual([posted.ts, reply.ts]);
    expect(Number(reply.ts)).toBeGreaterThan(Number(posted.ts));
    // A channel only one side lists stays that side's.
    expect(sandbox.workspaceFor('T0NORTH').channel('C0AGENTS')).toBeUndefined();
  });

  it('lists everyone as a member on both sides; users.info names each person’s own team', async () => {
    for (const team of ['T0SANDBOX', 'T0NORTH']) {
      const members = await client(tokens[team]).conversations.members({ channel: SHARED });
      expect(members.members).toEqual(expect.arrayContaining(['U0BOB', 'U0ERIN']));
      const info = await client(tokens[team]).conversations.info({ channel: SHARED });
      expect(info.channel).toMatchObject({ id: SHARED, is_ext_shared: true });
    }
    const erin = await client(tokens.T0SANDBOX).users.info({ user: 'U0ERIN' });
    expect(erin.user?.team_id).toBe('T0NORTH');
    const bob = await client(tokens.T0NORTH).users.info({ user: 'U0BOB' });
    expect(bob.user?.team_id).toBe('T0SANDBOX');
  });
});
